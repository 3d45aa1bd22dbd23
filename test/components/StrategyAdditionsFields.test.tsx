import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { StrategyAdditionsFields } from '../../src/components/settings/StrategyAdditionsFields';
import { DEFAULT_WINDOW } from '../../src/store/settings';

const fields = (strategy: string) => (
  <StrategyAdditionsFields window={{ ...DEFAULT_WINDOW, strategy }} onToggle={() => undefined} onClearOnProvider={() => undefined} onReset={() => undefined} />
);

describe('what Windowpane adds to a strategy', () => {
  it('offers its switches where the strategy has some, and nothing where it has none', () => {
    const { rerender } = render(fields('truncate'));
    expect(screen.getByRole('group', { name: 'Added by Windowpane' })).toBeInTheDocument();
    rerender(fields('provider'));
    expect(screen.queryByRole('group', { name: 'Added by Windowpane' })).not.toBeInTheDocument();
    rerender(fields('off'));
    expect(screen.queryByRole('group', { name: 'Added by Windowpane' })).not.toBeInTheDocument();
  });
});
