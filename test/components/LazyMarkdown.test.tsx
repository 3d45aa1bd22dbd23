import { render, screen } from '@testing-library/react';
import { Suspense } from 'react';
import { describe, expect, it } from 'vitest';
import { LazyMarkdown, loadMarkdown } from '../../src/components/LazyMarkdown';

describe('LazyMarkdown', () => {
  it('renders formatted in the first render once its chunk has loaded, without showing the plain text first', async () => {
    await loadMarkdown();
    render(
      <Suspense fallback={<p>plain **text**</p>}>
        <LazyMarkdown text="Some **bold** text" />
      </Suspense>,
    );
    // No waiting: the first render already holds the Markdown.
    expect(screen.getByText('bold').tagName).toBe('STRONG');
    expect(screen.queryByText('plain **text**')).not.toBeInTheDocument();
  });
});
