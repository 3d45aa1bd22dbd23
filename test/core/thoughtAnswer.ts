// A stored answer that thought: what the tests of reading back thinking time and reasoning
// tokens (core, persistence, sync) start from.
import type { StoredMessage } from '../../src/core';

/** An answer with signed thinking, 64 of its 90 output tokens reasoning, 4 s of thinking. */
export function thoughtAnswer(fields: Partial<StoredMessage> = {}): StoredMessage {
  return {
    id: 'm1',
    conversationId: 'c1',
    seq: 1,
    parentId: null,
    role: 'assistant',
    kind: 'message',
    content: [
      { type: 'thinking', thinking: 'Plan.', signature: 'sig' },
      { type: 'text', text: 'Done.' },
    ],
    createdAt: 1,
    status: 'complete',
    usage: { inputTokens: 10, outputTokens: 90, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 64 },
    thinkingMs: 4_000,
    ...fields,
  };
}
