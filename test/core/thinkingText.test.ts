import { describe, expect, it } from 'vitest';
import { countWords, formatThinkingTime, readStoredMessage, thinkingOf, thinkingSummary } from '../../src/core';
import { thoughtAnswer } from './thoughtAnswer';

describe('thinkingOf', () => {
  it('joins the thinking blocks in order and counts the redacted ones, leaving the answer out', () => {
    const thinking = thinkingOf({
      content: [
        { type: 'thinking', thinking: 'First, the schema.', signature: 'sig-1' },
        { type: 'redacted_thinking', data: 'EqQB' },
        { type: 'tool_use', id: 'toolu_1', name: 'read_schema', input: {} },
        { type: 'thinking', thinking: 'Then the rows.' },
        { type: 'text', text: 'Start with orders.' },
      ],
    });
    expect(thinking).toEqual({ text: 'First, the schema.\n\nThen the rows.', redacted: 1 });
  });

  it('is empty for an answer that did not think', () => {
    expect(thinkingOf({ content: [{ type: 'text', text: 'Hi' }] })).toEqual({ text: '', redacted: 0 });
  });
});

describe('countWords', () => {
  it('counts runs between white space of any kind', () => {
    expect(countWords('')).toBe(0);
    expect(countWords('  \n ')).toBe(0);
    expect(countWords('one')).toBe(1);
    expect(countWords(' Orders has\tthe most\n\nrows. ')).toBe(5);
  });
});

describe('formatThinkingTime', () => {
  it('shows whole seconds under a minute, then minutes and seconds', () => {
    expect(formatThinkingTime(0)).toBe('0 s');
    expect(formatThinkingTime(8_999)).toBe('8 s');
    expect(formatThinkingTime(60_000)).toBe('1 min');
    expect(formatThinkingTime(65_400)).toBe('1 min 5 s');
    expect(formatThinkingTime(12 * 60_000 + 7_000)).toBe('12 min');
  });
});

describe('thinkingSummary', () => {
  it('gives the length and the time', () => {
    const text = Array.from({ length: 1240 }, () => 'word').join(' ');
    expect(thinkingSummary({ text, redacted: 0 }, 8_200)).toBe('Thinking · 1,240 words · 8 s');
    expect(thinkingSummary({ text: 'Hmm', redacted: 0 })).toBe('Thinking · 1 word');
  });

  it('says when the provider redacted it, all or in part', () => {
    expect(thinkingSummary({ text: '', redacted: 1 }, 3_000)).toBe('Thinking · redacted by the provider · 3 s');
    expect(thinkingSummary({ text: 'Two words', redacted: 2 })).toBe('Thinking · 2 words · 2 parts redacted');
  });
});

describe('readStoredMessage', () => {
  const stored = thoughtAnswer({ status: 'streaming' });

  it('gives a valid record back as it is, status included', () => {
    expect(readStoredMessage(stored)).toBe(stored);
  });

  it('leaves out a bad thinking time or reasoning count and keeps the rest', () => {
    for (const [thinkingMs, reasoningTokens] of [
      [-1, 91],
      [Number.NaN, -1],
      ['4 s', 1.5],
      [Infinity, '64'],
    ] as const) {
      const record = { ...stored, thinkingMs, usage: { ...stored.usage, reasoningTokens } };
      const read = readStoredMessage(record);
      expect(read).not.toHaveProperty('thinkingMs');
      expect(read?.usage).toEqual({ inputTokens: 10, outputTokens: 90, cacheReadTokens: 0, cacheWriteTokens: 0 });
      expect(read).toMatchObject({ id: 'm1', status: 'streaming', content: stored.content });
      // The stored record itself is never changed.
      expect(record.thinkingMs).toBe(thinkingMs);
    }
  });

  it('refuses what the app cannot use at all', () => {
    expect(readStoredMessage({ ...stored, content: 'text' })).toBeUndefined();
    expect(readStoredMessage({ ...stored, usage: { ...stored.usage, outputTokens: 'many' } })).toBeUndefined();
    expect(readStoredMessage(null)).toBeUndefined();
  });
});
