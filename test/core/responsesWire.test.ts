import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { fromResponsesUsage, toResponsesInput } from '../../src/core';
import type { OpenAIWireMessage } from '../../src/core';

describe('toResponsesInput', () => {
  it('maps each OpenAI-shape message to the Responses items it stands for, in order', () => {
    const messages: OpenAIWireMessage[] = [
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBOR', detail: 'high' } },
          { type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBER' } },
          { type: 'text', text: 'What is in these?' },
        ],
      },
      {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [
          { id: 'call_A', type: 'function', function: { name: 'read_attachment', arguments: '{"name":"a.pdf"}' } },
          { id: 'call_B', type: 'function', function: { name: 'run_javascript', arguments: '{"code":"1+1"}' } },
        ],
        reasoning: [{ id: 'rs_1', encrypted_content: 'gAAAA-1', summary: 'Read the file first.', tokens: 80 }],
      },
      { role: 'tool', tool_call_id: 'call_A', content: 'Page 1: …' },
      { role: 'tool', tool_call_id: 'call_B', content: 'Error: 2 is not allowed' },
    ];
    expect(toResponsesInput(messages)).toEqual([
      { role: 'system', content: 'Be brief.' },
      {
        role: 'user',
        content: [
          { type: 'input_image', image_url: 'data:image/png;base64,iVBOR', detail: 'high' },
          { type: 'input_file', file_data: 'data:application/pdf;base64,JVBER', filename: 'a.pdf' },
          { type: 'input_text', text: 'What is in these?' },
        ],
      },
      { type: 'reasoning', id: 'rs_1', summary: [{ type: 'summary_text', text: 'Read the file first.' }], encrypted_content: 'gAAAA-1' },
      { role: 'assistant', content: 'Let me look.' },
      { type: 'function_call', call_id: 'call_A', name: 'read_attachment', arguments: '{"name":"a.pdf"}' },
      { type: 'function_call', call_id: 'call_B', name: 'run_javascript', arguments: '{"code":"1+1"}' },
      { type: 'function_call_output', call_id: 'call_A', output: 'Page 1: …' },
      { type: 'function_call_output', call_id: 'call_B', output: 'Error: 2 is not allowed' },
    ]);
  });

  it('never emits an empty message, and a reasoning item with no summary sends an empty summary', () => {
    expect(
      toResponsesInput([
        { role: 'user', content: '  ' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
          reasoning: [{ id: 'rs', encrypted_content: 'x', summary: '', tokens: 1 }],
        },
      ]),
    ).toEqual([
      { type: 'reasoning', id: 'rs', summary: [], encrypted_content: 'x' },
      { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
    ]);
  });

  it('pairs every function call with its output, as the API requires, for any tool exchange the window keeps', () => {
    const exchange = fc.record({
      text: fc.string(),
      calls: fc.uniqueArray(fc.stringMatching(/^call_[a-z0-9]{1,6}$/), { minLength: 1, maxLength: 4 }),
      reasoning: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(exchange, { minLength: 1, maxLength: 6 }), (exchanges) => {
        const messages: OpenAIWireMessage[] = [{ role: 'user', content: 'Go' }];
        exchanges.forEach((ex, n) => {
          const calls = ex.calls.map((id) => ({ id: `${id}_${n}`, type: 'function' as const, function: { name: 'f', arguments: '{}' } }));
          const answer: OpenAIWireMessage = { role: 'assistant', content: ex.text || null, tool_calls: calls };
          if (ex.reasoning) answer.reasoning = [{ id: `rs_${n}`, encrypted_content: 'e', summary: '', tokens: 1 }];
          messages.push(answer, ...calls.map((c) => ({ role: 'tool' as const, tool_call_id: c.id, content: 'ok' })));
        });
        const items = toResponsesInput(messages);
        const callIds = items.filter((i) => i.type === 'function_call').map((i) => i.call_id);
        const outputIds = items.filter((i) => i.type === 'function_call_output').map((i) => i.call_id);
        expect(outputIds).toEqual(callIds);
        items.forEach((item, i) => {
          // Every output comes after its call; every reasoning item is followed by the item it led to.
          if (item.type === 'function_call_output') expect(items.slice(0, i).some((c) => c.type === 'function_call' && c.call_id === item.call_id)).toBe(true);
          if (item.type === 'reasoning') expect(items[i + 1]?.type === 'function_call' || items[i + 1]?.role === 'assistant').toBe(true);
        });
      }),
    );
  });
});

describe('fromResponsesUsage', () => {
  it('reports cached input apart from the rest and reasoning as part of the output', () => {
    expect(
      fromResponsesUsage({
        input_tokens: 2006,
        input_tokens_details: { cached_tokens: 1920 },
        output_tokens: 140,
        output_tokens_details: { reasoning_tokens: 100 },
      }),
    ).toEqual({ inputTokens: 86, outputTokens: 140, cacheReadTokens: 1920, cacheWriteTokens: 0, reasoningTokens: 100 });
    expect(fromResponsesUsage(undefined)).toEqual({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(fromResponsesUsage({ input_tokens: -5, output_tokens: Number.NaN })).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
    });
  });
});
