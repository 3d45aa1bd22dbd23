import { describe, expect, it } from 'vitest';
import { countedParts } from '../../../src/core';

describe('countedParts', () => {
  it('reads string content as one text and null content as nothing', () => {
    expect(countedParts({ role: 'user', content: 'hello' })).toEqual({
      texts: ['hello'],
      toolCalls: 0,
      attachments: 0,
      images: [],
      pdfTokens: 0,
      reasoningTokens: 0,
    });
    expect(countedParts({ role: 'assistant', content: null })).toEqual({
      texts: [],
      toolCalls: 0,
      attachments: 0,
      images: [],
      pdfTokens: 0,
      reasoningTokens: 0,
    });
  });

  it('reads Anthropic blocks: text, thinking, tool_use, tool_result, image, text document', () => {
    const parts = countedParts({
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Check the file first.', signature: 'sig-opaque' },
        { type: 'text', text: 'Reading it.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } },
        { type: 'tool_result', tool_use_id: 'toolu_0', content: [{ type: 'text', text: 'export {}' }] },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'Plain notes.' } },
      ],
    });
    expect(parts.texts).toEqual(['Check the file first.', 'Reading it.', 'read_file', '{"path":"a.ts"}', 'export {}', 'Plain notes.']);
    expect(parts.toolCalls).toBe(1);
    expect(parts.attachments).toBe(1);
  });

  it('reads OpenAI multi-part content and tool_calls', () => {
    const parts = countedParts({
      role: 'assistant',
      content: [
        { type: 'text', text: 'Let me look.' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
      ],
      tool_calls: [
        { id: 'call_1', type: 'function', function: { name: 'search', arguments: '{"q":"tokens"}' } },
        { id: 'call_2', type: 'function', function: { name: 'open', arguments: '{"id":7}' } },
      ],
    });
    expect(parts.texts).toEqual(['Let me look.', 'search', '{"q":"tokens"}', 'open', '{"id":7}']);
    expect(parts.toolCalls).toBe(2);
    expect(parts.attachments).toBe(1);
  });

  it('falls back to the JSON of blocks it does not know, without throwing', () => {
    const unknown = { type: 'citation_map', entries: [1, 2] };
    expect(countedParts({ role: 'user', content: [unknown, 42, 'loose text'] }).texts).toEqual([JSON.stringify(unknown), 'loose text']);
  });
});
