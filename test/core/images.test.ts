import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  anthropicImageTokens,
  clearedImageText,
  estimateMessageTokens,
  estimateTextTokens,
  fileRefsIn,
  imagesToClear,
  imageTokens,
  imageTokensIn,
  MESSAGE_OVERHEAD_TOKENS,
  openAiImageTokens,
  requestFileBudget,
  resolveFileRefs,
  toAnthropicWire,
  toOpenAIWire,
  withImagesCleared,
  type ImageBlock,
  type StoredMessage,
} from '../../src/core';
import { validateRequest } from './validateRequest';
import { importAll } from './transfer/importAll';

const image = (fileId: string, width = 1200, height = 800): ImageBlock => ({
  type: 'image',
  fileId,
  name: `${fileId}.png`,
  mediaType: 'image/png',
  width,
  height,
  bytes: 48_000,
});

let seq = 0;
function message(role: 'user' | 'assistant', content: StoredMessage['content']): StoredMessage {
  seq++;
  return { id: `m${seq}`, conversationId: 'c', seq, role, kind: 'message', content, createdAt: seq, status: 'complete' };
}

describe('images on the wire', () => {
  it('maps a user message with images to Anthropic image blocks before the text, the bytes still to fill in', () => {
    const [item] = toAnthropicWire([message('user', [image('a'), { type: 'text', text: 'What is this?' }])], 'claude-sonnet-4-6');
    expect(item!.message.content).toEqual([
      {
        type: 'image',
        source: { type: 'base64', media_type: 'image/png', data: '' },
        windowpane_file: { fileId: 'a', name: 'a.png', mediaType: 'image/png', width: 1200, height: 800, model: 'claude-sonnet-4-6' },
      },
      { type: 'text', text: 'What is this?' },
    ]);
  });

  it('maps a user message with images to OpenAI content parts, and an image alone to parts without text', () => {
    const items = toOpenAIWire([message('user', [image('a'), { type: 'text', text: 'And this?' }]), message('user', [image('b')])], undefined, 'gpt-4o');
    expect(items.map((i) => i.message.content)).toEqual([
      [
        { type: 'image_url', image_url: { url: '' }, windowpane_file: expect.objectContaining({ fileId: 'a' }) },
        { type: 'text', text: 'And this?' },
      ],
      [{ type: 'image_url', image_url: { url: '' }, windowpane_file: expect.objectContaining({ fileId: 'b' }) }],
    ]);
  });

  it('never puts an image on an assistant turn', () => {
    const [item] = toAnthropicWire([message('assistant', [image('a'), { type: 'text', text: 'Done.' }])]);
    expect(item!.message.content).toBe('Done.');
  });

  it('fills in the bytes of each file the request keeps, and says so when a file is gone', () => {
    const anthropic = toAnthropicWire([message('user', [image('a'), image('gone'), { type: 'text', text: 'Compare.' }])]).map((i) => i.message);
    expect(fileRefsIn(anthropic).map((r) => r.fileId)).toEqual(['a', 'gone']);
    const [filled] = resolveFileRefs(anthropic, new Map([['a', 'iVBORw0KGgo=']]));
    expect(filled!.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'text', text: '[image: gone.png — the file was deleted, so it is not sent]' },
      { type: 'text', text: 'Compare.' },
    ]);
    expect(validateRequest(resolveFileRefs(anthropic, new Map([['a', 'iVBORw0KGgo=']]))).ok).toBe(true);

    const openai = toOpenAIWire([message('user', [image('a')])]).map((i) => i.message);
    expect(resolveFileRefs(openai, new Map([['a', 'AAAA']]))[0]!.content).toEqual([{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }]);
    // Nothing of Windowpane's reference is ever sent.
    expect(JSON.stringify(resolveFileRefs(openai, new Map([['a', 'AAAA']])))).not.toContain('windowpane_file');
  });
});

describe('counting images', () => {
  it('counts an attached image by its provider formula for the model, not by its text', () => {
    const [anthropic] = toAnthropicWire([message('user', [image('a', 1920, 1080), { type: 'text', text: 'Describe it.' }])], 'claude-opus-4-7');
    expect(estimateMessageTokens(anthropic!.message)).toBe(
      MESSAGE_OVERHEAD_TOKENS + estimateTextTokens('Describe it.') + anthropicImageTokens(1920, 1080, 'claude-opus-4-7'),
    );
    const [openai] = toOpenAIWire([message('user', [image('a', 1920, 1080)])], undefined, 'gpt-4o');
    expect(estimateMessageTokens(openai!.message)).toBe(MESSAGE_OVERHEAD_TOKENS + openAiImageTokens(1920, 1080, 'auto', 'gpt-4o'));
    expect(imageTokensIn([anthropic!.message, openai!.message])).toBe(
      anthropicImageTokens(1920, 1080, 'claude-opus-4-7') + openAiImageTokens(1920, 1080, 'auto', 'gpt-4o'),
    );
  });

  it('prices the same image differently where the documented formulas differ', () => {
    // Claude 4.7 reads large images at its high-resolution tier, about three times the standard one.
    expect(imageTokens('anthropic', 1920, 1080, 'claude-opus-4-7')).toBeGreaterThan(imageTokens('anthropic', 1920, 1080, 'claude-sonnet-4-5'));
    expect(imageTokens('anthropic', 200, 200)).toBe(64);
    expect(imageTokens('openai', 1024, 1024, 'gpt-4o')).toBe(765);
  });
});

describe('leaving old images out', () => {
  it('keeps the newest N images of the request and clears the older ones', () => {
    const history = [
      message('user', [image('1'), image('2')]),
      message('assistant', [{ type: 'text', text: 'ok' }]),
      message('user', [image('3'), { type: 'text', text: 'and' }]),
      message('user', [image('4')]),
    ];
    expect([...imagesToClear(history, 2)].sort()).toEqual(['1', '2']);
    expect([...imagesToClear(history, 0)].sort()).toEqual(['1', '2', '3', '4']);
    expect(imagesToClear(history, 10).size).toBe(0);
  });

  it('sends a cleared image as a one-line note naming it and the tokens saved', () => {
    const original = message('user', [image('old', 1200, 800), { type: 'text', text: 'Look.' }]);
    const cleared = withImagesCleared(original, new Set(['old']), 'anthropic');
    expect(cleared.content).toEqual([
      { type: 'text', text: `[image: old.png, 1200×800 — not sent to save ${imageTokens('anthropic', 1200, 800).toLocaleString('en-US')} tokens]` },
      { type: 'text', text: 'Look.' },
    ]);
    expect(clearedImageText(image('x', 10, 20), 1234)).toBe('[image: x.png, 10×20 — not sent to save 1,234 tokens]');
    expect(withImagesCleared(original, new Set(['other']), 'anthropic')).toBe(original);
    expect(original.content[0]!.type).toBe('image');
  });

  it('keeps every request valid whichever images are cleared (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(3), { minLength: 1, maxLength: 12 }), fc.nat(6), (imageCounts, keep) => {
        const history = imageCounts.flatMap((count, turn) => [
          message('user', [
            ...Array.from({ length: count }, (_, k) => image(`f${turn}-${k}`)),
            ...(turn % 2 || count === 0 ? [{ type: 'text' as const, text: `Turn ${turn}` }] : []),
          ]),
          message('assistant', [{ type: 'text', text: `Answer ${turn}` }]),
        ]);
        const cleared = imagesToClear(history, keep);
        const shown = history.map((m) => withImagesCleared(m, cleared, 'anthropic'));
        const sentImages = shown.flatMap((m) => m.content.filter((b) => b.type === 'image'));
        expect(sentImages.length).toBe(
          Math.min(
            keep,
            imageCounts.reduce((a, b) => a + b, 0),
          ),
        );
        const wire = toAnthropicWire(shown).map((i) => i.message);
        const bytes = new Map(fileRefsIn(wire).map((r) => [r.fileId, 'AAAA']));
        const request = resolveFileRefs(wire, bytes);
        expect(validateRequest(request).ok).toBe(true);
      }),
    );
  });
});

describe('images in a Windowpane export', () => {
  it('reads an image block back, and refuses one with a media type no API takes', () => {
    const file = (block: unknown) => ({
      format: 'windowpane',
      version: 2,
      exportedAt: 1,
      conversations: [
        {
          conversation: { id: 'c', title: 'T', createdAt: 1, updatedAt: 1, messageCount: 1 },
          messages: [
            { id: 'm', conversationId: 'c', seq: 0, parentId: null, role: 'user', kind: 'message', content: [block], createdAt: 1, status: 'complete' },
          ],
        },
      ],
    });
    const read = importAll(JSON.stringify(file(image('a'))));
    expect(read.ok && read.value.conversations[0]!.messages[0]!.content).toEqual([image('a')]);
    const bad = importAll(JSON.stringify(file({ ...image('a'), mediaType: 'image/svg+xml' })));
    expect(bad.ok && bad.value.conversations).toEqual([]);
    expect(bad.ok && bad.value.failures).toEqual([{ position: 1, title: 'T', reason: expect.stringContaining('mediaType') }]);
  });
});

describe('what one request may carry in files', () => {
  const pdf = (fileId: string, pages: number, bytes = 1000) =>
    ({ type: 'document', fileId, name: `${fileId}.pdf`, mediaType: 'application/pdf', bytes, pages }) as const;

  it('leaves out, oldest first, the PDFs that would take a request past its pages or bytes', () => {
    const history = [
      message('user', [pdf('old', 60)]),
      message('user', [pdf('middle', 30)]),
      message('user', [pdf('new', 50), { type: 'text', text: 'Compare' }]),
    ];
    const budget = requestFileBudget('anthropic', 200_000);
    expect(budget.pages).toBe(100);
    // 50 + 30 fit in 100 pages; the oldest 60 would not.
    expect([...imagesToClear(history, 10, false, budget)]).toEqual(['old']);
    // A 1M-token window takes 600 pages; PDFs sent as text count none; OpenAI states no page limit.
    expect(imagesToClear(history, 10, false, requestFileBudget('anthropic', 1_000_000)).size).toBe(0);
    expect(imagesToClear(history, 10, false, requestFileBudget('anthropic', 200_000, 'text')).size).toBe(0);
    expect(imagesToClear(history, 10, false, requestFileBudget('openai', 200_000)).size).toBe(0);
    // Bytes: 32 MB of base64 in all, a tenth kept for the text.
    const big = [message('user', [pdf('a', 1, 12_000_000)]), message('user', [pdf('b', 1, 12_000_000)])];
    expect([...imagesToClear(big, 10, false, requestFileBudget('anthropic', 200_000))]).toEqual(['a']);
  });
});
