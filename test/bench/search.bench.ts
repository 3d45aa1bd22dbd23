// Full-text search over 5,000 stored messages (about 5 MB of text from the corpus, see
// conversations.ts) in fake IndexedDB: one query through the index as the app asks it
// (the index lookup, then reading the hits' messages for their snippets), against the
// baseline of what a scan costs at the least: lower-casing every message's text in memory
// and looking for the query in it, with no storage read at all (the scan the index
// replaced also read every message from IndexedDB). Building the index from the messages
// and loading a saved one are timed once each, and put against the same baseline. A query
// that matches nothing shows the lookup alone: the rest of a query's cost is per hit.
import 'fake-indexeddb/auto';
import { IDBFactory } from 'fake-indexeddb';
import { messageText, type StoredMessage } from '../../src/core';
import { openWindowpaneDb } from '../../src/persistence/db';
import { createSearchEngine } from '../../src/persistence/searchIndex';
import { chatHistory } from './conversations';
import { fmtMs, fmtRatio, type Row } from './harness';
import { interleavedMedians } from './interleaved';

export const title = 'search over 5,000 stored messages (CPU time; ratio = ÷ one in-memory scan of their text)';

const SIZE = 5_000;
const CONVERSATION_SIZE = 50;

export async function run(): Promise<Row[]> {
  const messages: StoredMessage[] = chatHistory(SIZE).map((item, i) => ({
    id: item.id,
    conversationId: `c${Math.floor(i / CONVERSATION_SIZE)}`,
    seq: i % CONVERSATION_SIZE,
    parentId: i % CONVERSATION_SIZE === 0 ? null : `m${i - 1}`,
    role: item.message.role as 'user' | 'assistant',
    kind: 'message',
    content: [{ type: 'text', text: String(item.message.content) }],
    createdAt: i,
    status: 'complete',
  }));
  const db = await openWindowpaneDb({ factory: new IDBFactory() });
  const tx = db.transaction(['conversations', 'messages'], 'readwrite');
  for (let c = 0; c < SIZE / CONVERSATION_SIZE; c++) {
    void tx.objectStore('conversations').put({ id: `c${c}`, title: `Conversation ${c}`, createdAt: c, updatedAt: c, messageCount: CONVERSATION_SIZE });
  }
  for (const m of messages) void tx.objectStore('messages').put(m);
  await tx.done;

  // A word from the middle of the history that not every message holds.
  const texts = messages.map(messageText);
  const words = texts[SIZE / 2]!.split(/\W+/).filter((w) => w.length > 6);
  const query = words[0] ?? 'window';
  const needle = query.toLowerCase();
  const scan = () => texts.filter((t) => t.toLowerCase().includes(needle)).length;

  let start = performance.now();
  const built = createSearchEngine(db, { saveDelayMs: 60_000 });
  await built.start();
  const buildMs = performance.now() - start;
  await built.flush();
  built.close();
  start = performance.now();
  const engine = createSearchEngine(db, { saveDelayMs: 60_000 });
  await engine.start();
  const loadMs = performance.now() - start;

  const found = (await engine.search(query, 100)).hits;
  if (found.length === 0 || scan() === 0) throw new Error(`"${query}" was not found (index: ${found.length}, scan: ${scan()})`);

  const absent = 'zqxjvwk';
  if ((await engine.search(absent, 100)).hits.length > 0) throw new Error(`"${absent}" was found`);
  const t = await interleavedMedians({ scan, query: () => engine.search(query, 100), lookup: () => engine.search(absent, 100) }, { rounds: 7 });
  engine.close();
  db.close();
  const row = (name: string, ms: number): Row => ({
    benchmark: 'search',
    case: name,
    value: fmtMs(ms),
    baseline: fmtMs(t.scan!),
    ratio: fmtRatio(ms / t.scan!),
  });
  return [
    row(`one query ("${query}", ${found.length} conversations, each hit's message read for its snippet)`, t.query!),
    row('one query that matches nothing (the index lookup alone)', t.lookup!),
    row('build the index from the messages (once, wall time)', buildMs),
    row('load the saved index and catch up (once, wall time)', loadMs),
  ];
}
