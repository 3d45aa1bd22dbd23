import { describe, expect, it } from 'vitest';
import { contentChars, groupUnits, messageShape, toolCallsOf, wireText, type WindowMessage } from '../../src/core';
import { isUserTurnStart, validateRequest } from './validateRequest';
import { buildHistory, messagesOf, type ConversationSpec } from './window/conversations';

const anthropicCall: WindowMessage = {
  role: 'assistant',
  content: [
    { type: 'text', text: 'Reading both files.' },
    { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } },
    { type: 'tool_use', id: 'toolu_2', name: 'read_file', input: { path: 'b.ts' } },
  ],
};
const anthropicResults: WindowMessage = {
  role: 'user',
  content: [
    { type: 'tool_result', tool_use_id: 'toolu_1', content: 'export const a = 1;' },
    { type: 'tool_result', tool_use_id: 'toolu_2', content: 'export const b = 2;' },
    { type: 'text', text: 'Also look at c.ts.' },
  ],
};
const openaiCall: WindowMessage = {
  role: 'assistant',
  content: null,
  tool_calls: [
    { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
    { id: 'call_2', type: 'function', function: { name: 'bash', arguments: '{"command":"npm test"}' } },
  ],
};
const openaiResult1: WindowMessage = { role: 'tool', tool_call_id: 'call_1', content: 'export const a = 1;' };
const openaiResult2: WindowMessage = { role: 'tool', tool_call_id: 'call_2', content: '2 passed' };

describe('reading tool calls and results', () => {
  it('reads Anthropic tool_use and tool_result blocks', () => {
    expect(messageShape(anthropicCall).callIds).toEqual(['toolu_1', 'toolu_2']);
    expect(toolCallsOf(anthropicCall)).toEqual([
      { id: 'toolu_1', name: 'read_file', input: { path: 'a.ts' } },
      { id: 'toolu_2', name: 'read_file', input: { path: 'b.ts' } },
    ]);
    expect(messageShape(anthropicResults)).toMatchObject({ resultIds: ['toolu_1', 'toolu_2'], toolResult: true, blockResults: true });
    expect(isUserTurnStart(anthropicResults)).toBe(false);
  });

  it('reads OpenAI tool_calls and role:"tool" answers', () => {
    expect(toolCallsOf(openaiCall)).toEqual([
      { id: 'call_1', name: 'read_file', input: '{"path":"a.ts"}' },
      { id: 'call_2', name: 'bash', input: '{"command":"npm test"}' },
    ]);
    expect(messageShape(openaiCall).callIds).toEqual(['call_1', 'call_2']);
    expect(messageShape(openaiResult2).resultIds).toEqual(['call_2']);
    expect(messageShape(openaiResult1)).toMatchObject({ toolResult: true, blockResults: false, callIds: [] });
  });

  it('treats plain messages as neither', () => {
    const plain: WindowMessage = { role: 'user', content: 'Hello' };
    expect(messageShape(plain)).toMatchObject({ callIds: [], resultIds: [], toolResult: false });
    expect(isUserTurnStart(plain)).toBe(true);
  });

  it('reads a message once: its shape is cached', () => {
    expect(messageShape(anthropicCall)).toBe(messageShape(anthropicCall));
  });
});

describe('wireText', () => {
  it('keeps prose and leaves tool calls and results out', () => {
    expect(wireText({ role: 'user', content: 'plain' })).toBe('plain');
    expect(wireText(anthropicCall)).toBe('Reading both files.');
    expect(wireText(anthropicResults)).toBe('Also look at c.ts.');
    expect(wireText(openaiCall)).toBe('');
    expect(wireText(openaiResult1)).toBe('');
    expect(
      wireText({
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'image_url', image_url: { url: 'x' } },
          { type: 'text', text: 'two' },
        ],
      }),
    ).toBe('one\ntwo');
  });
});

describe('contentChars (characters counted for chars/4)', () => {
  it('counts strings as is and everything else by JSON length, tool_calls included', () => {
    expect(contentChars({ role: 'user', content: 'Hello world' })).toBe(11);
    expect(contentChars({ role: 'user', content: null })).toBe(0);
    expect(contentChars(anthropicCall)).toBe(JSON.stringify(anthropicCall.content).length);
    expect(contentChars(openaiCall)).toBe(JSON.stringify(openaiCall.tool_calls).length);
  });
});

describe('groupUnits', () => {
  it('keeps an Anthropic call with the user message that answers it', () => {
    const messages = [{ role: 'user', content: 'go' }, anthropicCall, anthropicResults, { role: 'assistant', content: 'done' }];
    expect(groupUnits(messages)).toEqual([
      { start: 0, end: 1 },
      { start: 1, end: 3 },
      { start: 3, end: 4 },
    ]);
  });

  it('keeps an OpenAI call with every role:"tool" answer', () => {
    const messages = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'go' },
      openaiCall,
      openaiResult1,
      openaiResult2,
      { role: 'user', content: 'next' },
    ];
    expect(groupUnits(messages)).toEqual([
      { start: 0, end: 1 },
      { start: 1, end: 2 },
      { start: 2, end: 5 },
      { start: 5, end: 6 },
    ]);
  });

  it('glues more messages on when asked (wire messages of one stored message)', () => {
    const messages = [
      { role: 'user', content: 'a' },
      { role: 'user', content: 'b' },
    ];
    expect(groupUnits(messages, () => true)).toEqual([{ start: 0, end: 2 }]);
  });

  it('leaves an orphan result in a unit of its own', () => {
    expect(groupUnits([{ role: 'user', content: 'hi' }, openaiResult1])).toEqual([
      { start: 0, end: 1 },
      { start: 1, end: 2 },
    ]);
  });
});

describe('validateRequest', () => {
  const spec: ConversationSpec = {
    system: 'Be brief.',
    turns: [
      {
        user: 'Fix the failing test.',
        steps: [
          {
            text: 'Looking.',
            calls: [
              { name: 'read_file', input: { path: 'a.ts' }, result: 'code' },
              { name: 'bash', input: { command: 'npm test' }, result: '1 failed' },
            ],
          },
          { text: 'Fixed.' },
        ],
      },
    ],
  };

  it.each(['anthropic', 'openai'] as const)('accepts a well-formed %s conversation with parallel tool calls', (shape) => {
    expect(validateRequest(messagesOf(buildHistory(spec, shape)), { provider: shape })).toEqual({ ok: true, violations: [] });
  });

  it('reports an Anthropic tool_use whose result is not in the next message, and the stray result', () => {
    const result = validateRequest([{ role: 'user', content: 'go' }, anthropicCall, { role: 'assistant', content: 'hm' }, anthropicResults], {
      provider: 'anthropic',
    });
    expect(result.ok).toBe(false);
    expect(result.violations.map((v) => [v.code, v.index, v.toolCallId])).toEqual([
      ['unanswered-tool-call', 1, 'toolu_1'],
      ['unanswered-tool-call', 1, 'toolu_2'],
      ['orphan-tool-result', 3, 'toolu_1'],
      ['orphan-tool-result', 3, 'toolu_2'],
    ]);
  });

  it('reports an OpenAI call missing one of its answers', () => {
    const result = validateRequest([{ role: 'user', content: 'go' }, openaiCall, openaiResult1, { role: 'user', content: 'and?' }]);
    expect(result.violations).toMatchObject([{ code: 'unanswered-tool-call', index: 1, toolCallId: 'call_2' }]);
  });

  it('reports a role:"tool" answer without its call, and a duplicate answer', () => {
    expect(validateRequest([{ role: 'user', content: 'go' }, openaiResult1]).violations).toMatchObject([
      { code: 'orphan-tool-result', index: 1, toolCallId: 'call_1' },
    ]);
    expect(validateRequest([{ role: 'user', content: 'go' }, openaiCall, openaiResult1, openaiResult2, openaiResult2]).violations).toMatchObject([
      { code: 'duplicate-tool-result', index: 1, toolCallId: 'call_2' },
    ]);
  });

  it('reports a tool call id used twice', () => {
    const twice: WindowMessage = {
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'toolu_9', name: 'x', input: {} },
        { type: 'tool_use', id: 'toolu_9', name: 'x', input: {} },
      ],
    };
    const answer: WindowMessage = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'ok' }] };
    expect(validateRequest([{ role: 'user', content: 'go' }, twice, answer]).violations.map((v) => v.code)).toEqual(['duplicate-tool-call']);
  });

  it('reports empty content, but allows a tool-only assistant turn and an empty tool output', () => {
    const result = validateRequest([
      { role: 'user', content: '   ' },
      { role: 'assistant', content: [] },
      { role: 'user', content: [{ type: 'text', text: '' }] },
      { role: 'assistant', content: null },
    ]);
    expect(result.violations.filter((v) => v.code === 'empty-content').map((v) => v.index)).toEqual([0, 1, 2, 3]);
    expect(
      validateRequest([
        { role: 'user', content: 'go' },
        { ...openaiCall, tool_calls: [(openaiCall.tool_calls as unknown[])[0]] },
        { ...openaiResult1, content: '' },
      ]).ok,
    ).toBe(true);
  });

  it('requires a user message first (after system messages) and at least one message', () => {
    expect(
      validateRequest([
        { role: 'system', content: 'Be brief.' },
        { role: 'assistant', content: 'Hi!' },
      ]).violations,
    ).toMatchObject([{ code: 'first-not-user', index: 1 }]);
    expect(validateRequest([]).violations).toMatchObject([{ code: 'empty-request', index: -1 }]);
    expect(validateRequest([{ role: 'system', content: 'only instructions' }]).violations).toMatchObject([{ code: 'empty-request' }]);
    expect(validateRequest([{ role: 'assistant', content: 'Hi!' }], { fragment: true }).ok).toBe(true);
  });

  it('checks roles against the target API', () => {
    expect(
      validateRequest(
        [
          { role: 'system', content: 'x' },
          { role: 'user', content: 'y' },
        ],
        { provider: 'anthropic' },
      ).violations,
    ).toMatchObject([{ code: 'invalid-role', index: 0 }]);
    expect(validateRequest([{ role: 'narrator', content: 'x' }]).violations.map((v) => v.code)).toContain('invalid-role');
    expect(
      validateRequest(
        [
          { role: 'developer', content: 'x' },
          { role: 'user', content: 'y' },
        ],
        { provider: 'openai' },
      ).ok,
    ).toBe(true);
  });

  it('reports tool blocks on the wrong role and tool_result blocks after text', () => {
    const late: WindowMessage = {
      role: 'user',
      content: [
        { type: 'text', text: 'first' },
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'x' },
      ],
    };
    const codes = validateRequest([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'x', input: {} }] },
      late,
      { role: 'user', content: [{ type: 'tool_use', id: 'toolu_2', name: 'x', input: {} }] },
    ]).violations.map((v) => [v.code, v.index]);
    expect(codes).toContainEqual(['misplaced-tool-block', 2]);
    expect(codes).toContainEqual(['misplaced-tool-block', 3]);
  });
});
