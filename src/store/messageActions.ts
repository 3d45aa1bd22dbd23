/**
 * What the user does to one message: regenerate an answer, edit and resend a question, pin.
 * Regenerating and editing never change what was written: each adds a new version beside
 * the old one (a sibling in the conversation's tree), shown and answered at once.
 */
import { isUserTurn, turnStartOf } from '../core';
import type { Runtime } from './runtime';
import { followLeaf, shownLeaf, treeOf } from './branches';
import { updateMessage } from './messageWrites';
import { respond, send } from './sendPipeline';

/**
 * Writes a new version of answer `messageId`, from the user message its turn answers (an
 * answer reached through tool calls is redone from there). The old answer stays as the
 * other version; if no new answer could even be started, the old one is shown again.
 */
export async function regenerate(rt: Runtime, messageId: string): Promise<void> {
  const state = rt.store.getState();
  const conversationId = state.activeId;
  if (!conversationId || state.sendingId) return;
  const tree = treeOf(state.messages[conversationId] ?? []);
  const target = tree.byId.get(messageId);
  if (!target || target.role !== 'assistant' || target.kind !== 'message') return;
  const start = turnStartOf(tree, messageId);
  if (!start) {
    rt.notifier.notify({ tone: 'info', text: 'This answer follows no message of yours, so there is nothing to answer again.' });
    return;
  }
  const before = shownLeaf(state, conversationId);
  followLeaf(rt, conversationId, start);
  await respond(rt, conversationId);
  if (before && shownLeaf(rt.store.getState(), conversationId) === start) followLeaf(rt, conversationId, before);
}

/**
 * Sends `text` as a new version of user message `messageId` (its sibling: same parent) and
 * answers it. The old version and everything after it stay, one "Previous version" away.
 * Returns false when it was not sent (see `send`), so the edit box keeps the text.
 */
export function editAndResend(rt: Runtime, messageId: string, text: string): boolean {
  const state = rt.store.getState();
  const conversationId = state.activeId;
  if (!conversationId || state.sendingId) return false;
  const tree = treeOf(state.messages[conversationId] ?? []);
  const target = tree.byId.get(messageId);
  if (!target || !isUserTurn(target)) return false;
  return send(rt, conversationId, text, { parentId: tree.parentOf.get(messageId) ?? null });
}

/** Pinned messages are never evicted by any strategy. */
export async function togglePin(rt: Runtime, messageId: string): Promise<void> {
  const state = rt.store.getState();
  for (const list of Object.values(state.messages)) {
    const message = list.find((m) => m.id === messageId);
    if (message) {
      await updateMessage(rt, message, { pinned: !message.pinned });
      return;
    }
  }
}
