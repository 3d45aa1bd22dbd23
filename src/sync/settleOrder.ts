/**
 * The order in which arrived messages are stored: parents before their children, and
 * otherwise oldest first, so each device gives every message a place (`seq`) above its
 * parent's, whatever order the server sent them in.
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
