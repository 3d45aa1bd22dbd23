/**
 * The order in which arrived messages are stored: parents before their children, and
 * otherwise oldest first, so each device gives every message a place (`seq`) above its
 * parent's, whatever order the server sent them in. And the newest leaf of what arrived: the
 * branch a person who went on with a conversation was last on.
 */
import type { StoredMessage } from '../core';

export function settleOrder<M extends Pick<StoredMessage, 'id' | 'parentId' | 'createdAt'>>(messages: readonly M[]): M[] {
  const byId = new Map(messages.map((m) => [m.id, m]));
  const sorted = [...messages].sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const placed = new Set<string>();
  const out: M[] = [];
  const place = (message: M, path: Set<string>) => {
    if (placed.has(message.id) || path.has(message.id)) return;
    path.add(message.id);
    const parent = message.parentId ? byId.get(message.parentId) : undefined;
    if (parent) place(parent, path);
    placed.add(message.id);
    out.push(message);
  };
  for (const message of sorted) place(message, new Set());
  return out;
}

/** The newest message that no other of `messages` follows (summaries are never leaves); ties go to the greater id. */
export function newestLeaf<M extends Pick<StoredMessage, 'id' | 'parentId' | 'createdAt' | 'kind'>>(messages: readonly M[]): M | undefined {
  const followed = new Set(messages.filter((m) => m.kind !== 'summary').map((m) => m.parentId));
  let newest: M | undefined;
  for (const m of messages) {
    if (m.kind === 'summary' || followed.has(m.id)) continue;
    if (!newest || m.createdAt > newest.createdAt || (m.createdAt === newest.createdAt && m.id > newest.id)) newest = m;
  }
  return newest;
}
