import { describe, expect, it } from 'vitest';
import { chars4, estimateTokens, tokensForChars } from '../../../src/core';

describe('chars4 (the characters / 4 estimate)', () => {
  it('divides string content by 4, rounding up', () => {
    expect(chars4({ role: 'user', content: '' })).toBe(0);
    expect(chars4({ role: 'user', content: 'abcd' })).toBe(1);
    expect(chars4({ role: 'user', content: 'abcde' })).toBe(2);
    expect(chars4({ role: 'user', content: 'x'.repeat(4000) })).toBe(1000);
  });

  it('counts block content and OpenAI tool calls by their JSON length', () => {
    const blocks = [{ type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a.ts' } }];
    expect(chars4({ role: 'assistant', content: blocks })).toBe(Math.ceil(JSON.stringify(blocks).length / 4));
    const calls = [{ id: 'call_1', type: 'function', function: { name: 'read', arguments: '{"path":"a.ts"}' } }];
    expect(chars4({ role: 'assistant', content: null, tool_calls: calls })).toBe(Math.ceil(JSON.stringify(calls).length / 4));
  });

  it('rounds once per count: a message by its own characters, a list by their total', () => {
    expect([0, 1, 4, 5, 8].map(tokensForChars)).toEqual([0, 1, 1, 2, 2]);
    const messages = [
      { role: 'user', content: 'abcde' },
      { role: 'assistant', content: 'abc' },
    ];
    expect(messages.map(chars4)).toEqual([2, 1]);
    expect(estimateTokens(messages)).toBe(tokensForChars(8));
    expect(estimateTokens(messages)).toBe(2);
  });
});
