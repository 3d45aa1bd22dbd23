import { countTokens as countChat } from 'gpt-tokenizer/model/gpt-4o';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import { ATTACHMENT_TOKENS, TOOL_CALL_OVERHEAD_TOKENS, estimateMessageTokens, type WindowMessage } from '../../../src/core';
import { OPENAI_REPLY_PRIMING_TOKENS, OPENAI_TOKENS_PER_MESSAGE, o200kCounter as count } from './o200kCounter';

describe('o200kCounter', () => {
  it('counts a chat exactly as OpenAI’s chat format does, reply priming added once', () => {
    const chat = [
      { role: 'system', content: 'You are a careful assistant.' },
      { role: 'user', content: 'Summarize the plan in two sentences, please.' },
      { role: 'assistant', content: 'The planner keeps the goal and the newest turns. It marks what it trims.' },
      { role: 'user', content: '日本語でもお願いします。' },
    ] as const;
    const total = chat.reduce((sum, message) => sum + count(message), 0) + OPENAI_REPLY_PRIMING_TOKENS;
    expect(total).toBe(countChat(chat as unknown as Parameters<typeof countChat>[0]));
  });

  it('counts one message as framing + role + content', () => {
    const text = 'Tokens are counted, not guessed.';
    expect(count({ role: 'user', content: text })).toBe(OPENAI_TOKENS_PER_MESSAGE + countTokens('user') + countTokens(text));
  });

  it('treats special-token text in user content as plain text', () => {
    const message = { role: 'user', content: 'Why does my log contain <|endoftext|> here?' };
    expect(count(message)).toBeGreaterThan(OPENAI_TOKENS_PER_MESSAGE + 10);
  });

  it('counts tool calls, tool results and images in both wire shapes', () => {
    const args = '{"path":"src/core/models.ts"}';
    const openaiCall: WindowMessage = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: args } }],
    };
    const expected = OPENAI_TOKENS_PER_MESSAGE + countTokens('assistant') + TOOL_CALL_OVERHEAD_TOKENS + countTokens('read_file') + countTokens(args);
    expect(count(openaiCall)).toBe(expected);
    const anthropicCall: WindowMessage = {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/core/models.ts' } }],
    };
    expect(count(anthropicCall)).toBe(expected);
    const image: WindowMessage = {
      role: 'user',
      content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo='.repeat(1000) } }],
    };
    expect(count(image)).toBe(OPENAI_TOKENS_PER_MESSAGE + countTokens('user') + ATTACHMENT_TOKENS);
  });

  it('agrees with the default estimator on framing, so the two are interchangeable counters', () => {
    const empty = { role: 'user', content: '' };
    expect(count(empty)).toBe(estimateMessageTokens(empty));
  });
});
