/**
 * Export to a file and import from one: Windowpane JSON and Markdown out, Windowpane, ChatGPT
 * and Claude exports (or their .zip) in. Loaded on first use (see actions.ts), with the
 * readers and writers of every format, which the first screen does not need.
 */
import { exportToMarkdown } from '../core';
import { exportJsonFiles, importFromFile, type ImportProgress, type ImportReport } from '../persistence/transferFiles';
import type { Runtime } from './runtime';
import { branchOf, treeOf } from './branches';
import { selectConversation } from './conversationActions';
import { activeSummary } from './history';
import { contextFor, planFor } from './planning';

function download(name: string, type: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function fileStem(title: string): string {
  return (
    title
      .replace(/[^\p{L}\p{N}]+/gu, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60)
      .toLowerCase() || 'conversation'
  );
}

/** Bytes of the images a JSON export with images would carry, for the open conversation and for all; null without storage. */
export async function exportImageBytes(rt: Runtime): Promise<{ active: number; all: number } | null> {
  if (rt.inMemory) return null;
  try {
    const files = await rt.repositories.files.listFiles();
    const activeId = rt.store.getState().activeId;
    const sum = (list: typeof files) => list.reduce((total, file) => total + file.bytes, 0);
    return { active: sum(files.filter((f) => f.conversationId === activeId)), all: sum(files) };
  } catch {
    return null;
  }
}

/** What an export carries beyond its format's default. */
export interface ExportOptions {
  /** JSON: the images' and PDFs' bytes inside, a complete backup. */
  withImages?: boolean;
  /** Markdown: each answer's thinking (JSON always keeps it, signatures included). */
  withThinking?: boolean;
}

/**
 * Downloads one conversation (or all) as Windowpane JSON or Markdown. API keys are never
 * included; `withImages` makes the JSON a complete backup, the images' bytes inside;
 * `withThinking` puts the thinking in the Markdown, which otherwise leaves it out.
 */
export async function exportConversations(rt: Runtime, format: 'json' | 'markdown', scope: 'active' | 'all', options: ExportOptions = {}): Promise<void> {
  const { withImages = false, withThinking = false } = options;
  const state = rt.store.getState();
  const repositories = rt.repositories;
  const ids = scope === 'active' && state.activeId ? [state.activeId] : undefined;
  const title = scope === 'active' ? (state.conversations.find((c) => c.id === state.activeId)?.title ?? 'conversation') : 'windowpane-conversations';
  const date = new Date(rt.deps.now()).toISOString().slice(0, 10);
  if (rt.inMemory) {
    rt.notifier.notify({ tone: 'error', text: 'Export needs browser storage, which is unavailable in this tab.' });
    return;
  }
  try {
    if (format === 'json') {
      const parts = await exportJsonFiles(repositories, ids, rt.deps.now(), withImages);
      const name = (i: number) => `${fileStem(title)}-${date}${parts.length > 1 ? `-part-${i + 1}-of-${parts.length}` : ''}.json`;
      parts.forEach((text, i) => download(name(i), 'application/json', text));
      if (parts.length > 1) {
        rt.notifier.notify({
          tone: 'info',
          text: `Your conversations were exported as ${parts.length} files, each small enough for Import. To bring them back, choose all ${parts.length} together in Import.`,
        });
      }
    } else {
      // Trim markers go where the transcript dims messages: those the next request leaves out or a summary covers.
      // Markdown holds one branch: the one this tab shows, else the one last shown.
      const records = (await repositories.transfer.readForExport(ids)).map(({ conversation, messages }) => {
        const leaf = state.branchLeaf[conversation.id];
        return { conversation: leaf ? { ...conversation, activeLeafId: leaf } : conversation, messages };
      });
      const notSentIds = new Set<string>();
      for (const { conversation, messages } of records) {
        const branch = branchOf(treeOf(messages), conversation.activeLeafId);
        for (const evicted of planFor(contextFor(rt, conversation.id), branch).evicted) notSentIds.add(evicted.id);
        for (const id of activeSummary(branch)?.covers ?? []) notSentIds.add(id);
      }
      download(`${fileStem(title)}-${date}.md`, 'text/markdown', exportToMarkdown(records, { notSentIds, includeThinking: withThinking }));
    }
  } catch (error) {
    rt.notifier.reportError(error, 'export');
  }
}

/** The import running in a runtime: the files waiting after the current one, and its Cancel. */
interface ImportRun {
  queue: File[];
  done: number;
  controller: AbortController;
}
const runs = new WeakMap<Runtime, ImportRun>();

/**
 * Imports export files one after another (Windowpane JSON, ChatGPT or Claude
 * `conversations.json`, or their data export `.zip`), with progress in `importing`. Files
 * given while an import runs wait their turn. Each ends with a notice of what it added; at
 * the end the first conversation imported is opened, unless another was opened meanwhile.
 */
export async function importFiles(rt: Runtime, files: readonly File[]): Promise<void> {
  if (files.length === 0) return;
  if (rt.inMemory) {
    rt.notifier.notify({ tone: 'error', text: 'Import needs browser storage, which is unavailable in this tab.' });
    return;
  }
  const running = runs.get(rt);
  if (running) {
    running.queue.push(...files);
    rt.store.setState((s) => (s.importing ? { importing: { ...s.importing, fileCount: s.importing.fileCount + files.length } } : {}));
    return;
  }
  const run: ImportRun = { queue: [...files], done: 0, controller: new AbortController() };
  runs.set(rt, run);
  const openBefore = rt.store.getState().activeId;
  let first: string | undefined;
  try {
    for (let file = run.queue.shift(); file; file = run.queue.shift()) {
      run.done++;
      rt.store.setState({ importing: { fileName: file.name, fileIndex: run.done, fileCount: run.done + run.queue.length, progress: null, cancelling: false } });
      const report = await importOne(rt, file, run.controller.signal);
      first ??= report.importedIds[0];
      if (report.cancelled) break;
    }
  } finally {
    runs.delete(rt);
    rt.store.setState({ importing: null });
  }
  // Once all is done, and only if the user has not opened a conversation meanwhile: never pulled away from what they read.
  if (first && rt.store.getState().activeId === openBefore) await selectConversation(rt, first);
}

/** Stops the running import after the batch being written (what was written stays) and drops the files waiting. */
export function cancelImport(rt: Runtime): void {
  const run = runs.get(rt);
  if (!run) return;
  run.queue.length = 0;
  run.controller.abort();
  rt.store.setState((s) => (s.importing ? { importing: { ...s.importing, fileCount: s.importing.fileIndex, cancelling: true } } : {}));
}

async function importOne(rt: Runtime, file: File, signal: AbortSignal): Promise<ImportReport> {
  const repositories = rt.repositories;
  // The list fills in as batches are written: storage announces each to this tab as another tab's write (see hydrate).
  const onProgress = (progress: ImportProgress) => rt.store.setState((s) => (s.importing ? { importing: { ...s.importing, progress } } : {}));
  const options = { now: rt.deps.now(), signal, onProgress };
  const outcome = rt.storage ? await rt.storage.importFile(file, options) : await importFromFile(repositories.transfer, file, options);
  const report = outcome.value;
  if (report.imported > 0) rt.store.setState({ conversations: await repositories.conversations.listConversations() });
  if (!outcome.ok) {
    rt.notifier.notify({ tone: 'error', text: `Nothing was imported from ${file.name}: ${outcome.error.message}` });
    return report;
  }
  rt.notifier.notify(importNotice(file.name, report));
  return report;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
const CONTINUE = 'Import the file again to continue — conversations already here are skipped.';

/** What an import that wrote something, or was stopped, tells the user. */
function importNotice(name: string, report: ImportReport): { tone: 'info' | 'warning' | 'error'; text: string } {
  const added = `${plural(report.imported, 'conversation')} (${plural(report.messages, 'message')})`;
  const left = leftOut(report);
  if (report.stopped) {
    const where = report.stopped.title ? ` at “${report.stopped.title}”` : '';
    return {
      tone: 'error',
      text: `Imported ${report.imported.toLocaleString('en-US')} of ${plural(report.total, 'conversation')} from ${name}; stopped${where}: ${report.stopped.message} ${CONTINUE}${left}`,
    };
  }
  if (report.cancelled && report.imported === 0) return { tone: 'info', text: `Import of ${name} cancelled; nothing was imported.${left}` };
  if (report.cancelled) {
    return {
      tone: 'warning',
      text: `Import of ${name} cancelled after ${added} of ${report.total.toLocaleString('en-US')}; what was imported is kept. ${CONTINUE}${left}`,
    };
  }
  const parts = [
    `Imported ${plural(report.imported, 'conversation')}` +
      (report.branches ? ` (with ${plural(report.branches, 'extra branch', 'extra branches')} you can switch between)` : ''),
  ];
  if (report.skipped) parts.push(`${report.skipped.toLocaleString('en-US')} already here, skipped`);
  // Under a second the time says nothing ("in 0.0 s"): only a longer import names it.
  const took = report.elapsedMs < 1000 ? '' : ` in ${seconds(report.elapsedMs)}`;
  return { tone: left ? 'warning' : 'info', text: `${parts.join(', ')} from ${name}: ${plural(report.messages, 'message')}${took}.${left}` };
}

/** The conversations left out, the first few named with why. */
function leftOut(report: ImportReport): string {
  const { failed } = report;
  if (failed.length === 0) return '';
  const named = failed
    .slice(0, 3)
    .map((f) => `“${f.title}” (conversation ${f.position.toLocaleString('en-US')}: ${f.reason})`)
    .join('; ');
  const more = failed.length > 3 ? `; and ${plural(failed.length - 3, 'other')}` : '';
  return ` ${plural(failed.length, 'conversation')} could not be read and ${failed.length === 1 ? 'was' : 'were'} left out: ${named}${more}.`;
}

function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`;
}
