/** A request's messages as the store builds them, for adapter tests of compaction. */
import type { ContentBlock, StoredMessage, WindowMessage } from '../../src/core';
import { buildHistory } from '../../src/store/history';

type Turn = { role: 'user'; text: string } | { role: 'assistant'; content: ContentBlock[] };

/** `turns` stored as messages, planned into the wire shape with the provider's compactions sent (`compaction` in buildHistory). */
export function buildHistoryForTest(shape: 'anthropic' | 'openai', turns: readonly Turn[]): { messages: never } {
  const stored: StoredMessage[] = turns.map((turn, i) => ({
    id: `m${i}`,
    conversationId: 'c',
    seq: i,
    role: turn.role,
    kind: 'message',
    content: turn.role === 'user' ? [{ type: 'text', text: turn.text }] : turn.content,
    createdAt: i,
    status: 'complete',
  }));
  const items = buildHistory(stored, shape, '', { keep: Infinity, model: '' }, { compaction: shape });
  return { messages: items.map((item) => item.message as WindowMessage) as never };
}
