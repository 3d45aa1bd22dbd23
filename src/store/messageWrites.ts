/**
 * Writing messages: storage first, then the store. A write that fails keeps the message on
 * screen (in memory for this visit) and tells the user, so nothing typed is lost.
 */
import type { ContentBlock, StoredMessage, ToolResultBlock } from '../core';
import type { NewMessage, StreamWriter } from '../persistence';
import type { Runtime } from './runtime';
import { upsertMessage, type StreamingState } from './state';
import { followLeaf, shownLeaf } from './branches';

/**
 * Writes a new message (or, for a conversation storage could not create, keeps it in memory)
 * and shows it. It follows the end of the branch shown unless `parentId` says otherwise (an
 * edit starts a sibling); a message that is not a summary becomes the branch's new end.
 */
export async function appendMessage(rt: Runtime, input: NewMessage): Promise<StoredMessage> {
  const message: NewMessage = input.parentId === undefined ? { ...input, parentId: shownLeaf(rt.store.getState(), input.conversationId) } : input;
  const stored = await storeMessage(rt, message);
  if (stored.kind !== 'summary') followLeaf(rt, stored.conversationId, stored.id);
  return stored;
}

async function storeMessage(rt: Runtime, message: NewMessage): Promise<StoredMessage> {
  if (!rt.memoryOnly.has(message.conversationId)) {
    try {
      const stored = await rt.repositories.conversations.appendMessage(message);
      upsertMessage(rt.store, stored);
      return stored;
    } catch (error) {
      rt.notifier.reportError(error, 'save the message');
    }
  }
  // Kept in memory so nothing typed is lost; it will not survive a reload.
  const list = rt.store.getState().messages[message.conversationId] ?? [];
  const stored: StoredMessage = {
    kind: 'message',
    status: 'complete',
    ...message,
    id: message.id ?? rt.deps.newId(),
    seq: (list.at(-1)?.seq ?? -1) + 1,
    createdAt: message.createdAt ?? rt.deps.now(),
  };
  upsertMessage(rt.store, stored);
  return stored;
}

/** Changes a stored message: shown at once, then written. */
export async function updateMessage(rt: Runtime, message: StoredMessage, patch: Partial<StoredMessage>): Promise<StoredMessage> {
  const next = { ...message, ...patch };
  upsertMessage(rt.store, next);
  try {
    const saved = await rt.repositories.conversations.updateMessage(message.id, patch);
    if (saved) upsertMessage(rt.store, saved);
    return saved ?? next;
  } catch (error) {
    rt.notifier.reportError(error, 'save the message');
    return next;
  }
}

/** The last write of a streamed answer, through its writer (which flushes and releases the stream's lock). */
export async function finishMessage(rt: Runtime, message: StoredMessage, writer: StreamWriter, patch: Partial<StoredMessage>): Promise<StoredMessage> {
  const next = { ...message, ...patch };
  upsertMessage(rt.store, next);
  try {
    return (await writer.finish(patch)) ?? next;
  } catch (error) {
    rt.notifier.reportError(error, 'save the answer');
    return next;
  }
}

/** The results of one answer's tool calls, as the one user message that must follow it. */
export async function appendToolResults(rt: Runtime, conversationId: string, results: ToolResultBlock[]): Promise<void> {
  await appendMessage(rt, { conversationId, role: 'user', content: results });
}

/** The text streamed so far into `message`, as content blocks. */
export function streamedContent(rt: Runtime, message: StoredMessage): ContentBlock[] {
  const streaming = rt.store.getState().streaming;
  if (streaming?.messageId !== message.id) return [];
  return streamingContent(streaming);
}

/**
 * What has streamed, as the blocks stored while it streams: the thinking (unsigned, so it is
 * shown and kept but never sent back; see `toAnthropicWire`), then the text.
 */
export function streamingContent(streaming: Pick<StreamingState, 'text' | 'thinking'>): ContentBlock[] {
  const content: ContentBlock[] = [];
  if (streaming.thinking) content.push({ type: 'thinking', thinking: streaming.thinking });
  if (streaming.text) content.push({ type: 'text', text: streaming.text });
  return content;
}
