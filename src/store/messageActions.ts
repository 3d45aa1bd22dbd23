/** What the user does to one message: regenerate an answer, edit and resend a question, pin. */
import type { StoredMessage } from '../core';
import { notify, type Runtime } from './appStore';
import { updateMessage } from './messageWrites';
import { respond, send } from './sendPipeline';

/** Streams a new answer into the last assistant message. */
export async function regenerate(rt: Runtime, messageId: string): Promise<void> {
  const state = rt.store.getState();
  const conversationId = state.activeId;
  if (!conversationId) return;
  const list = state.messages[conversationId] ?? [];
  const target = list.find((m) => m.id === messageId);
  if (!target || target.role !== 'assistant' || target.kind !== 'message') return;
  const later = list.filter((m) => m.seq > target.seq && m.kind === 'message');
  if (later.length > 0) {
    notify(rt, { tone: 'info', text: 'Only the latest answer can be regenerated.' });
    return;
  }
  await respond(rt, conversationId, target);
}

/**
 * Edits a user message and asks again. The newest user message, answered by one plain
 * answer, is changed in place and its answer regenerated; any other (an older one, or one
 * answered through tool calls) is sent again as a new message at the end, so the history
 * after it is never lost and every tool call keeps its result.
 */
export async function editAndResend(rt: Runtime, messageId: string, text: string): Promise<void> {
  const state = rt.store.getState();
  const conversationId = state.activeId;
  if (!conversationId || state.sendingId) return;
  const list = state.messages[conversationId] ?? [];
  const target = list.find((m) => m.id === messageId);
  if (!target || target.role !== 'user' || carriesToolResults(target)) return;
  const lastUser = [...list].reverse().find((m) => m.role === 'user' && m.kind === 'message' && !carriesToolResults(m));
  const later = list.filter((m) => m.seq > target.seq && m.kind === 'message');
  if (lastUser?.id !== target.id || later.length > 1) {
    send(rt, conversationId, text);
    return;
  }
  await updateMessage(rt, target, { content: [{ type: 'text', text }] });
  const answer = list.find((m) => m.seq > target.seq && m.role === 'assistant' && m.kind === 'message');
  await respond(rt, conversationId, answer);
}

/** A user message that answers tool calls rather than being something the user wrote. */
function carriesToolResults(message: StoredMessage): boolean {
  return message.content.some((block) => block.type === 'tool_result');
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
