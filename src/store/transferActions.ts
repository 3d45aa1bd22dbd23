/** Export to a file and import from one: Windowpane JSON and Markdown out, Windowpane, ChatGPT and Claude exports in. */
import { exportToMarkdown } from '../core';
import { exportJsonText, importFromFile } from '../persistence';
import { notify, repo, reportError, type Runtime } from './appStore';
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
    const files = await repo(rt).listFiles();
    const activeId = rt.store.getState().activeId;
    const sum = (list: typeof files) => list.reduce((total, file) => total + file.bytes, 0);
    return { active: sum(files.filter((f) => f.conversationId === activeId)), all: sum(files) };
  } catch {
    return null;
  }
}

/**
 * Downloads one conversation (or all) as Windowpane JSON or Markdown. API keys are never
 * included; `withImages` makes the JSON a complete backup, the images' bytes inside.
 */
export async function exportConversations(rt: Runtime, format: 'json' | 'markdown', scope: 'active' | 'all', withImages = false): Promise<void> {
  const state = rt.store.getState();
  const repository = repo(rt);
  const ids = scope === 'active' && state.activeId ? [state.activeId] : undefined;
  const title = scope === 'active' ? (state.conversations.find((c) => c.id === state.activeId)?.title ?? 'conversation') : 'windowpane-conversations';
  const date = new Date(rt.deps.now()).toISOString().slice(0, 10);
  if (rt.inMemory) {
    notify(rt, { tone: 'error', text: 'Export needs browser storage, which is unavailable in this tab.' });
    return;
  }
  try {
    if (format === 'json') download(`${fileStem(title)}-${date}.json`, 'application/json', await exportJsonText(repository, ids, rt.deps.now(), withImages));
    else {
      // Trim markers go where the transcript dims messages: those the next request leaves out or a summary covers.
      // Markdown holds one branch: the one this tab shows, else the one last shown.
      const records = (await repository.readForExport(ids)).map(({ conversation, messages }) => {
        const leaf = state.branchLeaf[conversation.id];
        return { conversation: leaf ? { ...conversation, activeLeafId: leaf } : conversation, messages };
      });
      const notSentIds = new Set<string>();
      for (const { conversation, messages } of records) {
        const branch = branchOf(treeOf(messages), conversation.activeLeafId);
        for (const evicted of planFor(contextFor(rt, conversation.id), branch).evicted) notSentIds.add(evicted.id);
        for (const id of activeSummary(branch)?.covers ?? []) notSentIds.add(id);
      }
      download(`${fileStem(title)}-${date}.md`, 'text/markdown', exportToMarkdown(records, { notSentIds }));
    }
  } catch (error) {
    reportError(rt, error, 'export');
  }
}

/** Imports a Windowpane, ChatGPT or Claude export file; a bad file changes nothing and says why. */
export async function importFile(rt: Runtime, file: File): Promise<void> {
  const repository = repo(rt);
  if (rt.inMemory) {
    notify(rt, { tone: 'error', text: 'Import needs browser storage, which is unavailable in this tab.' });
    return;
  }
  const outcome = await importFromFile(repository, file, { now: rt.deps.now() });
  if (!outcome.ok) {
    notify(rt, { tone: 'error', text: `Nothing was imported from ${file.name}: ${outcome.error.message}` });
    return;
  }
  const { imported, skipped, branches } = outcome.value;
  rt.store.setState({ conversations: await repository.listConversations() });
  const parts = [
    `Imported ${imported} conversation${imported === 1 ? '' : 's'}` +
      (branches ? ` (with ${branches} extra branch${branches === 1 ? '' : 'es'} you can switch between)` : ''),
  ];
  if (skipped) parts.push(`${skipped} already here, skipped`);
  notify(rt, { tone: 'info', text: `${parts.join(', ')} from ${file.name}.` });
  const first = outcome.value.importedIds[0];
  if (first) await selectConversation(rt, first);
}
