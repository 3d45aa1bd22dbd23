import { describe, expect, it } from 'vitest';
import { standInToolDefinitions, toolNamesCalled } from '../../../src/core';

describe('toolNamesCalled', () => {
  it('lists the tools called, once each in first-seen order, from canonical or Anthropic wire messages', () => {
    const messages = [
      { role: 'user', content: 'Compute, then read.' },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Sure.' },
          { type: 'tool_use', id: 'a', name: 'run_javascript', input: {} },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: '2' }] },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'b', name: 'read_attachment', input: {} },
          { type: 'tool_use', id: 'c', name: 'run_javascript', input: {} },
        ],
      },
    ];
    expect(toolNamesCalled(messages)).toEqual(['run_javascript', 'read_attachment']);
  });

  it('is empty for plain text and OpenAI messages, and names a stand-in when only a result is left', () => {
    expect(toolNamesCalled([{ content: 'hi' }, { content: [{ type: 'text', text: 'there' }] }, { content: null }])).toEqual([]);
    expect(toolNamesCalled([{ content: [{ type: 'tool_result', tool_use_id: 'gone', content: 'x' }] }])).toEqual(['earlier_tool']);
  });

  it('gives each name a definition no model can use: an empty object schema', () => {
    const [definition] = standInToolDefinitions(['run_javascript']);
    expect(definition).toMatchObject({ name: 'run_javascript', inputSchema: { type: 'object', properties: {} } });
    expect(standInToolDefinitions([])).toEqual([]);
  });
});
