/**
 * Versions in the running app (real store, fake IndexedDB, the Demo provider): Edit and
 * Regenerate add a version beside the old one, "n / m" says where the message stands, and
 * the Previous version and Next version buttons switch the branch shown.
 */
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { renderApp, resetApp } from './appHarness';

const answers = () => screen.getAllByRole('article', { name: 'Assistant message' });
const questions = () => screen.getAllByRole('article', { name: 'User message' });

async function answered(count: number) {
  await waitFor(
    () => {
      expect(answers()).toHaveLength(count);
      for (const a of answers()) expect(a).toHaveAttribute('data-status', 'complete');
    },
    { timeout: 8000 },
  );
  await screen.findByRole('button', { name: 'Send' });
}

describe('versions of a message', { timeout: 45_000 }, () => {
  beforeEach(() => resetApp());

  it('Edit keeps the old question; the switch goes back and forth between the two branches', async () => {
    renderApp();
    const box = await screen.findByRole('textbox', { name: 'Message' });
    await userEvent.type(box, 'Explain tokens{Enter}');
    await answered(1);
    await userEvent.type(box, 'And windows?{Enter}');
    await answered(2);

    await userEvent.click(within(questions()[1]!).getByRole('button', { name: 'Edit' }));
    const edit = screen.getByRole('textbox', { name: 'Edit message' });
    await userEvent.clear(edit);
    await userEvent.type(edit, 'And context windows?');
    await userEvent.click(screen.getByRole('button', { name: 'Save and resend' }));
    await waitFor(() => expect(questions()[1]).toHaveTextContent('And context windows?'));
    await answered(2);
    const versions = within(questions()[1]!).getByRole('group', { name: 'Version 2 of 2' });
    expect(versions).toHaveTextContent('2 / 2');
    expect(questions()).toHaveLength(2);

    await userEvent.click(within(versions).getByRole('button', { name: 'Previous version' }));
    await waitFor(() => expect(questions()[1]).toHaveTextContent('And windows?'));
    expect(within(questions()[1]!).getByRole('group', { name: 'Version 1 of 2' })).toBeInTheDocument();
    expect(answers()).toHaveLength(2);
    // The keyboard reaches the switch too.
    within(questions()[1]!).getByRole('button', { name: 'Next version' }).focus();
    await userEvent.keyboard('{Enter}');
    await waitFor(() => expect(questions()[1]).toHaveTextContent('And context windows?'));
  });

  it('Regenerate on an older answer adds a version and keeps what followed the old one', async () => {
    renderApp();
    const box = await screen.findByRole('textbox', { name: 'Message' });
    await userEvent.type(box, 'First{Enter}');
    await answered(1);
    await userEvent.type(box, 'Second{Enter}');
    await answered(2);

    await userEvent.click(within(answers()[0]!).getByRole('button', { name: 'Regenerate' }));
    await waitFor(() => expect(questions()).toHaveLength(1));
    await answered(1);
    expect(within(answers()[0]!).getByRole('group', { name: 'Version 2 of 2' })).toBeInTheDocument();

    await userEvent.click(within(answers()[0]!).getByRole('button', { name: 'Previous version' }));
    await waitFor(() => expect(questions()).toHaveLength(2));
    expect(questions()[1]).toHaveTextContent('Second');
  });
});
