import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capToolText, estimateTextTokens, MCP_RESULT_MAX_CHARS, MCP_RESULT_MAX_IMAGES, mcpResultMaxTokens, mcpResultOutcome } from '../../../src/core';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==';

describe('an MCP tool result as the model reads it', () => {
  it('joins text items', () => {
    expect(
      mcpResultOutcome({
        content: [
          { type: 'text', text: 'Issue 7' },
          { type: 'text', text: 'open' },
        ],
      }),
    ).toEqual({ content: 'Issue 7\nopen', isError: false, images: [] });
  });

  it('makes isError an error result with what the server said', () => {
    expect(mcpResultOutcome({ content: [{ type: 'text', text: 'The database is locked.' }], isError: true })).toEqual({
      content: 'The database is locked.',
      isError: true,
      images: [],
    });
    expect(mcpResultOutcome({ content: [], isError: true })).toEqual({ content: 'The tool failed and said nothing more.', isError: true, images: [] });
  });

  it('hands back the images the providers read, apart from the text', () => {
    const result = mcpResultOutcome({
      content: [
        { type: 'text', text: 'The chart:' },
        { type: 'image', data: `${PNG.slice(0, 40)}\n${PNG.slice(40)}`, mimeType: 'image/png' },
        { type: 'image', data: PNG, mimeType: 'image/webp' },
      ],
    });
    expect(result).toEqual({
      content: 'The chart:',
      isError: false,
      images: [
        { mediaType: 'image/png', data: PNG },
        { mediaType: 'image/webp', data: PNG },
      ],
    });
    // An image alone is a result: no "returned nothing".
    expect(mcpResultOutcome({ content: [{ type: 'image', data: PNG, mimeType: 'image/gif' }] }).content).toBe('');
  });

  it('describes the images it cannot send, and audio', () => {
    expect(mcpResultOutcome({ content: [{ type: 'image', data: PNG, mimeType: 'image/tiff' }] })).toEqual({
      content: '[image/tiff, 70 bytes, not shown to the model: not a PNG, JPEG, GIF or WebP image]',
      isError: false,
      images: [],
    });
    expect(mcpResultOutcome({ content: [{ type: 'image', data: 'not base64!', mimeType: 'image/png' }] }).content).toBe(
      '[image/png, 6 bytes, not shown to the model: its data is not base64]',
    );
    expect(mcpResultOutcome({ content: [{ type: 'audio', data: 'A'.repeat(4096), mimeType: 'audio/wav' }] }).content).toBe(
      '[audio/wav, 3 KB, not shown to the model]',
    );
    // A media type that is not one is not repeated.
    expect(mcpResultOutcome({ content: [{ type: 'image', data: PNG, mimeType: '<b>x</b>' }] }).content).toBe(
      '[image, 70 bytes, not shown to the model: not a PNG, JPEG, GIF or WebP image]',
    );
  });

  it(`keeps at most ${MCP_RESULT_MAX_IMAGES} images and names the rest`, () => {
    const many = Array.from({ length: MCP_RESULT_MAX_IMAGES + 2 }, () => ({ type: 'image', data: PNG, mimeType: 'image/png' }));
    const result = mcpResultOutcome({ content: many });
    expect(result.images).toHaveLength(MCP_RESULT_MAX_IMAGES);
    expect(result.content).toBe(Array(2).fill(`[image/png, 70 bytes, not shown to the model: more than ${MCP_RESULT_MAX_IMAGES} images]`).join('\n'));
  });

  it('reads embedded resources and links', () => {
    const result = mcpResultOutcome({
      content: [
        { type: 'resource', resource: { uri: 'file:///notes.md', text: '# Notes' } },
        { type: 'resource', resource: { uri: 'file:///a.bin', blob: 'AAAA', mimeType: 'application/octet-stream' } },
        { type: 'resource_link', uri: 'https://example.com/x', name: 'x', description: 'The x page' },
      ],
    });
    expect(result.content).toBe(
      [
        '[resource file:///notes.md]\n# Notes',
        '[resource file:///a.bin: application/octet-stream, 3 bytes, not shown to the model]',
        '[link to resource https://example.com/x (x): The x page]',
      ].join('\n'),
    );
  });

  it('falls back on structuredContent when the content says nothing', () => {
    expect(mcpResultOutcome({ content: [], structuredContent: { temperature: 21 } }).content).toBe('{"temperature":21}');
  });

  it('names unknown content and refuses what is not a result', () => {
    expect(mcpResultOutcome({ content: [{ type: 'video' }] }).content).toBe('[content of type "video", not shown]');
    expect(mcpResultOutcome('<script>')).toEqual({
      content: 'The MCP server answered with something that is not a tool result.',
      isError: true,
      images: [],
    });
  });

  it('cuts a large result and says how much was left out', () => {
    const big = 'x'.repeat(300_000);
    const { content } = mcpResultOutcome({ content: [{ type: 'text', text: big }] });
    expect(content.length).toBeLessThanOrEqual(MCP_RESULT_MAX_CHARS);
    const left = Number(/: ([\d,]+) of its 300,000 characters were left out/.exec(content)?.[1]?.replace(/,/g, ''));
    expect(content.indexOf('\n[The result was cut')).toBe(300_000 - left);
  });

  it('keeps every result within the cap, whole when it fits', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 500 }), fc.integer({ min: 0, max: 400 }), (text, max) => {
        const cut = capToolText(text, max);
        if (text.length <= max) expect(cut).toBe(text);
        else {
          expect(cut.length).toBeLessThanOrEqual(Math.max(max, cut.length - cut.indexOf('\n[The result was cut')));
          expect(text.startsWith(cut.slice(0, cut.indexOf('\n[The result was cut')))).toBe(true);
        }
      }),
    );
  });

  it('cuts a result to a tenth of a small window, in any script, and leaves a large window’s cut at 40,000 characters', () => {
    const log = 'INFO request served in 12 ms\n'.repeat(10_000);
    const japanese = '東京の天気は晴れで、気温は二十度です。'.repeat(3_000);
    for (const text of [log, japanese]) {
      const budget = mcpResultMaxTokens(15_000);
      expect(budget).toBe(1_500);
      const { content } = mcpResultOutcome({ content: [{ type: 'text', text }] }, MCP_RESULT_MAX_CHARS, budget);
      expect(content).toMatch(/\n\[The result was cut: [\d,]+ of its [\d,]+ characters were left out\.\]$/);
      // About the budget: the note itself adds a few tokens.
      expect(estimateTextTokens(content)).toBeLessThanOrEqual(budget + 40);
      expect(estimateTextTokens(content)).toBeGreaterThan(budget * 0.8);
    }
    const large = mcpResultOutcome({ content: [{ type: 'text', text: log }] }, MCP_RESULT_MAX_CHARS, mcpResultMaxTokens(991_808)).content;
    expect(large.length).toBe(MCP_RESULT_MAX_CHARS);
    // A short result is never cut.
    expect(capToolText('Issue 7: open.', MCP_RESULT_MAX_CHARS, 200)).toBe('Issue 7: open.');
  });
});
