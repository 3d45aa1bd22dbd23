// Images a tool returned (an MCP tool's): stored with the tool result, sent as image blocks
// where the API takes them, counted by the provider's formula, cleared with the result.
import { describe, expect, it } from 'vitest';
import {
  estimateMessageTokens,
  fileRefsIn,
  imagesToClear,
  imageTokens,
  imageTokensIn,
  planContext,
  readStoredMessage,
  resolveFileRefs,
  storedMessageProblem,
  toAnthropicWire,
  toOpenAIWire,
  toResponsesInput,
  withImagesCleared,
  type ContentBlock,
  type ImageBlock,
  type OpenAIWireMessage,
  type PlanItem,
  type StoredMessage,
  type ToolResultBlock,
} from '../../../src/core';

const MODEL = 'claude-sonnet-4-5';

const chart: ImageBlock = { type: 'image', fileId: 'f-chart', name: 'render_chart image.png', mediaType: 'image/png', width: 1000, height: 800, bytes: 48_213 };

let seq = 0;
function stored(role: 'user' | 'assistant', content: ContentBlock[]): StoredMessage {
  seq++;
  return { id: `m${seq}`, conversationId: 'c1', seq, role, kind: 'message', content, createdAt: 1_700_000_000_000 + seq, status: 'complete' };
}

const call = (id: string): StoredMessage => stored('assistant', [{ type: 'tool_use', id, name: 'render_chart', input: { title: id } }]);
const result = (id: string, images: ImageBlock[] = [chart], content = 'The chart of sales.'): StoredMessage =>
  stored('user', [{ type: 'tool_result', tool_use_id: id, content, images }]);

describe('a tool result with images on the wire', () => {
  it('goes to Anthropic as a tool_result of text and image blocks, the bytes filled in at send time', () => {
    const [item] = toAnthropicWire([result('toolu_1')], MODEL);
    const content = item!.message.content as Array<Record<string, unknown>>;
    expect(content).toHaveLength(1);
    const block = content[0]!;
    expect(block.type).toBe('tool_result');
    const inner = block.content as Array<Record<string, unknown>>;
    expect(inner[0]).toEqual({ type: 'text', text: 'The chart of sales.' });
    expect(inner[1]).toMatchObject({ type: 'image', source: { type: 'base64', media_type: 'image/png', data: '' } });
    expect(fileRefsIn([item!.message]).map((ref) => ref.fileId)).toEqual(['f-chart']);

    const [sent] = resolveFileRefs([item!.message], new Map([['f-chart', 'iVBORw0KGgo=']]));
    expect(sent!.content).toEqual([
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: [
          { type: 'text', text: 'The chart of sales.' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        ],
      },
    ]);
    // A file deleted since is sent as a line saying so, inside the same result.
    const [gone] = resolveFileRefs([item!.message], new Map());
    expect(((gone!.content as Array<Record<string, unknown>>)[0]!.content as unknown[])[1]).toEqual({
      type: 'text',
      text: '[image: render_chart image.png — the file was deleted, so it is not sent]',
    });
  });

  it('sends only the images when the tool said nothing else', () => {
    const [item] = toAnthropicWire([result('toolu_1', [chart], '')], MODEL);
    const inner = (item!.message.content as Array<Record<string, unknown>>)[0]!.content as Array<Record<string, unknown>>;
    expect(inner.map((block) => block.type)).toEqual(['image']);
  });

  it('goes to the Responses API as a function_call_output of input_text and input_image', () => {
    const items = toOpenAIWire([result('call_1')], undefined, 'gpt-5', 'file', true);
    expect(items).toHaveLength(1);
    const message = items[0]!.message;
    expect(message.role).toBe('tool');
    const [resolved] = resolveFileRefs([message], new Map([['f-chart', 'iVBORw0KGgo=']]));
    expect(toResponsesInput([resolved as OpenAIWireMessage])).toEqual([
      {
        type: 'function_call_output',
        call_id: 'call_1',
        output: [
          { type: 'input_text', text: 'The chart of sales.' },
          { type: 'input_image', image_url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'auto' },
        ],
      },
    ]);
  });

  it('goes to Chat Completions, whose tool messages carry text only, as a line naming each image', () => {
    const [item] = toOpenAIWire([result('call_1')], undefined, 'llama3.2-vision');
    expect(item!.message).toEqual({ role: 'tool', tool_call_id: 'call_1', content: 'The chart of sales.\n[image/png, 47 KB, not shown to the model]' });
    const [error] = toOpenAIWire([stored('user', [{ type: 'tool_result', tool_use_id: 'call_2', content: 'Failed.', is_error: true, images: [chart] }])]);
    expect(error!.message.content).toBe('Error: Failed.\n[image/png, 47 KB, not shown to the model]');
  });
});

describe('a tool result image counted', () => {
  const text = (message: StoredMessage) =>
    ({ ...message, content: message.content.map((b) => (b.type === 'tool_result' ? { ...b, images: [] } : b)) }) as StoredMessage;

  it("by each provider's formula, in the estimate and in the gauge's images", () => {
    const withImage = result('toolu_1');
    const anthropic = toAnthropicWire([withImage], MODEL)[0]!.message;
    const anthropicText = toAnthropicWire([text(withImage)], MODEL)[0]!.message;
    const formula = imageTokens('anthropic', 1000, 800, MODEL);
    expect(formula).toBeGreaterThan(500);
    expect(imageTokensIn([anthropic])).toBe(formula);
    // The same result without its image, less the framing of one text block.
    expect(estimateMessageTokens(anthropic)).toBeGreaterThanOrEqual(estimateMessageTokens(anthropicText) + formula);
    expect(estimateMessageTokens(anthropic)).toBeLessThan(estimateMessageTokens(anthropicText) + formula + 20);

    const responses = toOpenAIWire([withImage], undefined, 'gpt-5', 'file', true)[0]!.message;
    const openaiFormula = imageTokens('openai', 1000, 800, 'gpt-5');
    expect(imageTokensIn([responses])).toBe(openaiFormula);
    expect(estimateMessageTokens(responses)).toBeGreaterThanOrEqual(openaiFormula);
    // Chat Completions gets a line, counted as text.
    expect(imageTokensIn([toOpenAIWire([withImage])[0]!.message])).toBe(0);
  });
});

describe('a tool result image cleared', () => {
  it('leaves with its result when tool results are cleared to save context', () => {
    const messages: StoredMessage[] = [stored('user', [{ type: 'text', text: 'Draw me the sales of each month.' }])];
    for (let i = 1; i <= 8; i++) messages.push(call(`toolu_${i}`), result(`toolu_${i}`));
    messages.push(stored('assistant', [{ type: 'text', text: 'Here they are.' }]));
    const history: PlanItem[] = toAnthropicWire(messages, MODEL);
    const plan = planContext({
      history,
      policy: { strategy: 'auto', options: { budgetTokens: 9000 } },
      model: { contextWindow: 200_000, maxOutputTokens: 1000 },
      counter: estimateMessageTokens,
    });
    expect(plan.evicted).toEqual([]);
    const cleared = plan.messages.filter((item) => item.cleared);
    expect(cleared.length).toBeGreaterThan(0);
    const formula = imageTokens('anthropic', 1000, 800, MODEL);
    for (const item of cleared) {
      expect(fileRefsIn([item.message])).toEqual([]);
      // What it saves is the image and the text, less the placeholder's own few tokens.
      expect(item.cleared!.savedTokens).toBe(estimateMessageTokens(item.cleared!.original) - estimateMessageTokens(item.message));
      expect(item.cleared!.savedTokens).toBeGreaterThan(formula - 50);
      const placeholder = ((item.message.content as Array<Record<string, unknown>>)[0]!.content as string) ?? '';
      const tokens = Number(/— ([\d,]+) tokens]$/.exec(placeholder)?.[1]?.replace(/,/g, ''));
      expect(tokens).toBeGreaterThan(formula);
    }
    // The newest three results keep their images.
    const kept = plan.messages.filter((item) => !item.cleared && fileRefsIn([item.message]).length > 0);
    expect(kept.length).toBeGreaterThanOrEqual(3);
    expect(imageTokensIn(plan.messages.map((item) => item.message))).toBe(kept.length * formula);
  });

  it('counts among the images a request keeps, and becomes a line of its result when left out', () => {
    const older = result('toolu_1', [{ ...chart, fileId: 'f-old' }]);
    const newer = result('toolu_2');
    const left = imagesToClear([older, newer], 1);
    expect([...left]).toEqual(['f-old']);
    const shown = withImagesCleared(older, left, 'anthropic', MODEL);
    const block = shown.content[0] as ToolResultBlock;
    expect(block.images).toBeUndefined();
    expect(block.content).toBe(
      `The chart of sales.\n[image: render_chart image.png, 1000×800 — not sent to save ${imageTokens('anthropic', 1000, 800, MODEL).toLocaleString('en-US')} tokens]`,
    );
    // A model that reads no images gets none from a tool either.
    expect([...imagesToClear([newer], Infinity, true)]).toEqual(['f-chart']);
  });
});

describe('a stored tool result with images read back', () => {
  const record = (images: unknown) => ({ ...result('toolu_1'), content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'The chart.', images }] });

  it('keeps its images', () => {
    expect(readStoredMessage(record([chart]))?.content).toEqual([{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'The chart.', images: [chart] }]);
    // An empty list is none.
    expect((readStoredMessage(record([]))?.content[0] as ToolResultBlock).images ?? []).toEqual([]);
  });

  it('refuses images that are not image references', () => {
    for (const bad of [
      'f-chart',
      [{ ...chart, type: 'document' }],
      [{ ...chart, fileId: '' }],
      [{ ...chart, mediaType: 'image/svg+xml' }],
      [{ ...chart, width: -1 }],
      [null],
    ]) {
      expect(readStoredMessage(record(bad))).toBeUndefined();
      expect(storedMessageProblem(record(bad))).toMatch(/images/);
    }
  });
});
