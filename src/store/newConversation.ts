/**
 * Creating the conversation a first message (or a first attached file) goes into: used by
 * the send loop and by attachments, kept apart from conversationActions so neither of
 * those imports the other.
 */
import type { Conversation } from '../core';
import type { Runtime } from './runtime';
import { setConversation, setMessages } from './state';

function titleFrom(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 60 ? `${line.slice(0, 57)}…` : line || 'New conversation';
}

/** Creates the conversation a first message goes into. */
export async function createConversationFor(rt: Runtime, firstText: string): Promise<Conversation> {
  const now = rt.deps.now();
  let conversation: Conversation | undefined;
  try {
    conversation = await rt.repositories.conversations.createConversation({ title: titleFrom(firstText) });
  } catch (error) {
    // Storage is full or failing: the conversation goes on in memory, so the message typed stays on screen.
    rt.notifier.reportError(error, 'start the conversation');
  }
  if (!conversation) {
    conversation = { id: rt.deps.newId(), title: titleFrom(firstText), createdAt: now, updatedAt: now, messageCount: 0 };
    rt.memoryOnly.add(conversation.id);
  }
  setConversation(rt.store, conversation);
  setMessages(rt.store, conversation.id, () => []);
  rt.store.setState({ activeId: conversation.id });
  return conversation;
}
