import { describe, expect, it } from 'vitest';
import { estimateMessageTokens, loopReasoning, toOpenAIWire } from '../../src/core';
import type { ContentBlock, OpenAIWireMessage, StoredMessage } from '../../src/core';

let seq = 0;
function msg(role: 'user' | 'assistant', content: ContentBlock[], extra: Partial<StoredMessage> = {}): StoredMessage {
  seq += 1;
  return { id: `m${seq}`, conversationId: 'c', seq, role, kind: 'message', content, createdAt: seq, status: 'complete', ...extra };
}
const sealed = (id: string, summary = ''): ContentBlock => ({ type: 'thinking', thinking: summary, reasoningItem: { id, encryptedContent: `gAAAA-${id}` } });

describe('loopReasoning', () => {
  it('gives reasoning only to the answers after the last message the user wrote, counted by their reported reasoning tokens', () => {
    const earlier = msg('assistant', [sealed('rs_old', 'old'), { type: 'text', text: 'Earlier answer' }], {
      usage: { inputTokens: 1, outputTokens: 900, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 800 },
    });
    const question = msg('user', [{ type: 'text', text: 'Now look it up' }]);
    const calling = msg('assistant', [sealed('rs_a', 'Look it up.'), { type: 'tool_use', id: 'call_1', name: 'f', input: {} }], {
      usage: { inputTokens: 1, outputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 240 },
    });
    const results = msg('user', [{ type: 'tool_result', tool_use_id: 'call_1', content: '42' }]);
    const unreported = msg('assistant', [sealed('rs_b'), { type: 'tool_use', id: 'call_2', name: 'f', input: {} }]);
    const loop = loopReasoning([msg('user', [{ type: 'text', text: 'Hi' }]), earlier, question, calling, results, unreported]);
    expect([...loop.keys()]).toEqual([calling.id, unreported.id]);
    expect(loop.get(calling.id)).toEqual([{ id: 'rs_a', encrypted_content: 'gAAAA-rs_a', summary: 'Look it up.', tokens: 240 }]);
    expect(loop.get(unreported.id)).toEqual([{ id: 'rs_b', encrypted_content: 'gAAAA-rs_b', summary: '', tokens: Math.ceil('gAAAA-rs_b'.length / 4) }]);
    // A new question ends the loop: nothing goes back.
    expect(loopReasoning([question, calling, results, unreported, msg('user', [{ type: 'text', text: 'Thanks' }])]).size).toBe(0);
  });

  it('counts a loop answer with its reasoning tokens, and the same answer without them when the loop is over', () => {
    const calling = msg('assistant', [sealed('rs_a'), { type: 'tool_use', id: 'call_1', name: 'f', input: { q: 1 } }]);
    const [plain] = toOpenAIWire([calling]);
    const withReasoning: OpenAIWireMessage = { ...plain!.message, reasoning: [{ id: 'rs_a', encrypted_content: 'x', summary: '', tokens: 5000 }] };
    expect(estimateMessageTokens(withReasoning) - estimateMessageTokens(plain!.message)).toBe(5000);
    const text: OpenAIWireMessage = { role: 'assistant', content: 'Done.', reasoning: [{ id: 'rs', encrypted_content: 'x', summary: '', tokens: 70 }] };
    expect(estimateMessageTokens(text) - estimateMessageTokens({ role: 'assistant', content: 'Done.' })).toBe(70);
  });
});
