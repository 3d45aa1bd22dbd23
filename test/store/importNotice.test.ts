/**
 * The notice a finished import leaves: how many conversations and messages, and how long it
 * took only when that was a second or more ("in 0.0 s" says nothing).
 */
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import { emptyImportReport } from '../../src/persistence/transferFiles';
import type { ChatProvider } from '../../src/providers';
import { importFiles } from '../../src/store/transferActions';
import { answer, scriptedRuntime } from './scriptedStore';

const idle: ChatProvider = {
  id: 'anthropic',
  wireShape: 'anthropic',
  send: async () => answer([{ type: 'text', text: 'Unused.' }]),
  complete: async () => 'Unused.',
};

/** The notice after importing a file whose import reports `elapsedMs`. */
async function noticeAfter(elapsedMs: number): Promise<string | undefined> {
  globalThis.indexedDB = new IDBFactory();
  const rt = await scriptedRuntime(idle);
  rt.storage!.importFile = async () => ({ ok: true, value: { ...emptyImportReport(), total: 2, read: 2, imported: 2, messages: 2, elapsedMs } });
  await importFiles(rt, [new File(['{}'], 'small.json')]);
  return rt.store.getState().notices.at(-1)?.text;
}

describe('the import-finished notice', () => {
  it('leaves the time out when the import took under a second', async () => {
    expect(await noticeAfter(40)).toBe('Imported 2 conversations from small.json: 2 messages.');
    expect(await noticeAfter(999)).toBe('Imported 2 conversations from small.json: 2 messages.');
  });

  it('says how long it took from a second on', async () => {
    expect(await noticeAfter(1000)).toBe('Imported 2 conversations from small.json: 2 messages in 1.0 s.');
    expect(await noticeAfter(2400)).toBe('Imported 2 conversations from small.json: 2 messages in 2.4 s.');
    expect(await noticeAfter(42_600)).toBe('Imported 2 conversations from small.json: 2 messages in 43 s.');
  });
});
