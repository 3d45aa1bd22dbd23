import { cleanup, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { emptyImportReport, type ImportOptions, type ImportOutcome, type ImportProgress } from '../../src/persistence/transferFiles';
import { renderApp, resetApp, runtime } from './appHarness';

beforeEach(() => {
  cleanup();
  resetApp();
});

/** Stands in for the storage's import: reports what the test says and ends when told, or when cancelled. */
function scriptedImports() {
  const started: Array<{ name: string; options: Omit<ImportOptions, 'limits'>; finish: (outcome: ImportOutcome) => void }> = [];
  runtime.storage!.importFile = (file, options) =>
    new Promise((resolve) => {
      started.push({ name: file.name, options, finish: resolve });
      options.signal?.addEventListener('abort', () =>
        resolve({ ok: true, value: { ...emptyImportReport(), total: 1000, read: 400, imported: 400, messages: 8000, cancelled: true } }),
      );
    });
  return started;
}

const progress = (p: Partial<ImportProgress>): ImportProgress => ({ phase: 'writing', done: 0, total: 1000, imported: 0, ...p });

async function renderReady() {
  renderApp();
  await screen.findByRole('navigation', { name: 'Conversations' });
  await waitFor(() => expect(runtime.storage).not.toBeNull());
}

describe('import progress', () => {
  it('shows each phase on a labelled progress bar, and Cancel keeps what was written and says so', async () => {
    await renderReady();
    const imports = scriptedImports();
    const user = userEvent.setup();
    await user.upload(screen.getByLabelText('Import file'), new File(['{}'], 'year.json', { type: 'application/json' }));
    await waitFor(() => expect(imports).toHaveLength(1));

    const bar = await screen.findByRole('progressbar', { name: 'Importing year.json' });
    expect(bar).toHaveAttribute('aria-valuetext', 'Starting…');
    const report = (p: ImportProgress) => imports[0]!.options.onProgress!(p);
    report(progress({ phase: 'reading', done: 50 * 1024 * 1024, total: 100 * 1024 * 1024 }));
    await waitFor(() => expect(bar).toHaveAttribute('aria-valuenow', '50'));
    expect(bar).toHaveAttribute('aria-valuetext', 'Reading the file: 50 of 100 MB');
    report(progress({ phase: 'parsing', total: 0 }));
    await waitFor(() => expect(bar).toHaveAttribute('aria-valuetext', 'Reading the conversations…'));
    expect(bar).not.toHaveAttribute('aria-valuenow');
    report(progress({ done: 400, imported: 400 }));
    await waitFor(() => expect(bar).toHaveAttribute('aria-valuenow', '40'));
    expect(bar).toHaveAttribute('aria-valuetext', 'Writing 400 of 1,000 conversations');

    // The app stays usable meanwhile.
    await user.type(screen.getByRole('searchbox', { name: 'Search conversations' }), 'still here');
    expect(screen.getByRole('searchbox', { name: 'Search conversations' })).toHaveValue('still here');

    await user.click(within(screen.getByRole('region', { name: 'Import' })).getByRole('button', { name: 'Cancel' }));
    expect(imports[0]!.options.signal!.aborted).toBe(true);
    await screen.findByText(/^Import of year\.json cancelled after 400 conversations \(8,000 messages\) of 1,000; what was imported is kept\./);
    expect(screen.queryByRole('progressbar')).toBeNull();
  });

  it('says so when Cancel comes before anything was written', async () => {
    await renderReady();
    const imports = scriptedImports();
    await userEvent.setup().upload(screen.getByLabelText('Import file'), new File(['{}'], 'early.zip'));
    await waitFor(() => expect(imports).toHaveLength(1));
    imports[0]!.finish({ ok: true, value: { ...emptyImportReport(), cancelled: true } });
    await screen.findByText('Import of early.zip cancelled; nothing was imported.');
  });

  it('imports several files one after another, then reports each', async () => {
    await renderReady();
    const imports = scriptedImports();
    const user = userEvent.setup();
    await user.upload(screen.getByLabelText('Import file'), [new File(['{}'], 'a.json'), new File(['{}'], 'b.zip')]);
    await screen.findByRole('progressbar', { name: 'Importing a.json' });
    expect(screen.getByText('file 1 of 2')).toBeInTheDocument();
    expect(imports.map((i) => i.name)).toEqual(['a.json']);
    imports[0]!.finish({ ok: true, value: { ...emptyImportReport(), total: 2, read: 2, imported: 2, messages: 10, elapsedMs: 1200 } });
    await screen.findByRole('progressbar', { name: 'Importing b.zip' });
    expect(screen.getByText('file 2 of 2')).toBeInTheDocument();
    await screen.findByText('Imported 2 conversations from a.json: 10 messages in 1.2 s.');
    const failed = { code: 'import_invalid' as const, message: 'This .zip archive holds no conversations.json.' };
    imports[1]!.finish({ ok: false, error: failed, value: { ...emptyImportReport(), error: failed } });
    await screen.findByText('Nothing was imported from b.zip: This .zip archive holds no conversations.json.');
    expect(screen.queryByRole('progressbar')).toBeNull();
  });

  it('names where a failed write stopped, and the conversations left out', async () => {
    await renderReady();
    const imports = scriptedImports();
    await userEvent.setup().upload(screen.getByLabelText('Import file'), new File(['{}'], 'big.json'));
    await waitFor(() => expect(imports).toHaveLength(1));
    imports[0]!.finish({
      ok: true,
      value: {
        ...emptyImportReport(),
        total: 1000,
        read: 412,
        imported: 412,
        failed: [{ position: 17, title: 'Broken one', reason: 'conversation 17.mapping should be an object, but is a list' }],
        stopped: { title: 'Trip planning', code: 'quota_exceeded', message: 'Browser storage is full.' },
      },
    });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent(
      'Imported 412 of 1,000 conversations from big.json; stopped at “Trip planning”: Browser storage is full. Import the file again to continue — conversations already here are skipped. ' +
        '1 conversation could not be read and was left out: “Broken one” (conversation 17: conversation 17.mapping should be an object, but is a list).',
    );
  });
});
