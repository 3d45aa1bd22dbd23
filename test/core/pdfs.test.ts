import { describe, expect, it } from 'vitest';
import {
  clearedDocumentText,
  documentTokens,
  estimateMessageTokens,
  exportToMarkdown,
  fileRefsIn,
  imagesToClear,
  imageTokensIn,
  MESSAGE_OVERHEAD_TOKENS,
  pdfAsText,
  pdfPageImageTokens,
  readAttachment,
  resolveFileRefs,
  toAnthropicWire,
  toOpenAIWire,
  withImagesCleared,
  type DocumentBlock,
  type ImageBlock,
  type StoredMessage,
} from '../../src/core';
import { validateRequest } from './validateRequest';
import { importAll, importEvery } from './transfer/importAll';

const pdf = (fileId: string, pageTokens = [100, 200, 50]): DocumentBlock => ({
  type: 'document',
  fileId,
  name: `${fileId}.pdf`,
  mediaType: 'application/pdf',
  bytes: 30_000,
  pages: pageTokens.length,
  pageTokens,
});

const image = (fileId: string): ImageBlock => ({ type: 'image', fileId, name: `${fileId}.png`, mediaType: 'image/png', width: 800, height: 600, bytes: 9000 });

let seq = 0;
function message(role: 'user' | 'assistant', content: StoredMessage['content']): StoredMessage {
  seq++;
  return { id: `m${seq}`, conversationId: 'c', seq, role, kind: 'message', content, createdAt: seq, status: 'complete' };
}

describe('PDFs on the wire', () => {
  it('maps a PDF to an Anthropic document block before the text, filled in with its base64 when the request is built', () => {
    const wire = toAnthropicWire([message('user', [pdf('report'), { type: 'text', text: 'Summarize it.' }])], 'claude-sonnet-4-6').map((i) => i.message);
    expect(wire[0]!.content).toEqual([
      {
        type: 'document',
        source: { type: 'base64', media_type: 'application/pdf', data: '' },
        windowpane_file: expect.objectContaining({ fileId: 'report', pdf: { pages: 3, pageTokens: [100, 200, 50], as: 'file' } }),
      },
      { type: 'text', text: 'Summarize it.' },
    ]);
    const [filled] = resolveFileRefs(wire, new Map([['report', 'JVBERi0=']]));
    expect(filled!.content).toEqual([
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } },
      { type: 'text', text: 'Summarize it.' },
    ]);
    expect(validateRequest(resolveFileRefs(wire, new Map([['report', 'JVBERi0=']]))).ok).toBe(true);
  });

  it('maps a PDF to an OpenAI file part with a data URL', () => {
    const wire = toOpenAIWire([message('user', [pdf('report'), { type: 'text', text: 'Read this.' }])], undefined, 'gpt-4o').map((i) => i.message);
    const [filled] = resolveFileRefs(wire, new Map([['report', 'JVBERi0=']]));
    expect(filled!.content).toEqual([
      { type: 'file', file: { filename: 'report.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } },
      { type: 'text', text: 'Read this.' },
    ]);
  });

  it('sends a model that takes no PDFs the extracted text, each page after a marker', () => {
    for (const wire of [
      toOpenAIWire([message('user', [pdf('notes', [5, 5]), { type: 'text', text: 'Any typos?' }])], undefined, 'llama3', 'text'),
      toAnthropicWire([message('user', [pdf('notes', [5, 5])])], 'demo', 'text'),
    ]) {
      const messages = wire.map((i) => i.message);
      expect(fileRefsIn(messages)[0]!.pdf!.as).toBe('text');
      const [filled] = resolveFileRefs(messages, new Map(), new Map([['notes', ['First page.', '']]]));
      const first = (filled!.content as { type: string; text: string }[])[0]!;
      expect(first).toEqual({
        type: 'text',
        text: '[PDF: notes.pdf — page 1 of 2]\nFirst page.\n\n[PDF: notes.pdf — page 2 of 2]\n(no text on this page)',
      });
    }
  });

  it('says a PDF was deleted when neither its bytes nor its text are stored', () => {
    const messages = toAnthropicWire([message('user', [pdf('gone'), { type: 'text', text: 'Hi' }])]).map((i) => i.message);
    const [filled] = resolveFileRefs(messages, new Map());
    expect((filled!.content as unknown[])[0]).toEqual({ type: 'text', text: '[PDF: gone.pdf — the file was deleted, so it is not sent]' });
  });

  it('keeps PDFs off assistant turns', () => {
    const [item] = toAnthropicWire([message('assistant', [pdf('a'), { type: 'text', text: 'Done.' }])]);
    expect(item!.message.content).toBe('Done.');
  });
});

describe('counting PDFs', () => {
  it('counts a PDF sent as the file as its page texts plus one page image per page, as each provider prices pages', () => {
    const block = pdf('a');
    expect(documentTokens('anthropic', block, 'file', 'claude-sonnet-4-6')).toBe(350 + 3 * pdfPageImageTokens('anthropic', 'claude-sonnet-4-6'));
    expect(documentTokens('openai', block, 'file', 'gpt-4o')).toBe(350 + 3 * pdfPageImageTokens('openai', 'gpt-4o'));
    expect(documentTokens('openai', block, 'text', 'llama3')).toBe(350);
    // Stored without page counts: the page images still count.
    expect(documentTokens('anthropic', { pages: 2 }, 'file')).toBe(2 * pdfPageImageTokens('anthropic', ''));
  });

  it('prices the wire block in the message estimate and in the gauge part, never its base64', () => {
    const [item] = toAnthropicWire([message('user', [pdf('a'), { type: 'text', text: 'Hi' }])], 'claude-sonnet-4-6');
    const expected = documentTokens('anthropic', pdf('a'), 'file', 'claude-sonnet-4-6');
    expect(imageTokensIn([item!.message])).toBe(expected);
    expect(estimateMessageTokens(item!.message)).toBe(MESSAGE_OVERHEAD_TOKENS + 1 + expected);
    const [asText] = toOpenAIWire([message('user', [pdf('a')])], undefined, 'llama3', 'text');
    expect(imageTokensIn([asText!.message])).toBe(350);
  });
});

describe('leaving old PDFs out', () => {
  it('counts images and PDFs together against the same keep, newest first', () => {
    const history = [message('user', [pdf('old')]), message('assistant', [{ type: 'text', text: 'ok' }]), message('user', [image('img'), pdf('new')])];
    expect([...imagesToClear(history, 2)]).toEqual(['old']);
    expect([...imagesToClear(history, 1)].sort()).toEqual(['img', 'old']);
    // A model refusing images: every image goes as a note, PDFs (as text) still count against keep.
    expect([...imagesToClear(history, 1, true)].sort()).toEqual(['img', 'old']);
    expect([...imagesToClear(history, 4, true)]).toEqual(['img']);
  });

  it('sends a left-out PDF as a note naming it, its pages and the tokens saved', () => {
    const m = message('user', [pdf('report'), { type: 'text', text: 'See above' }]);
    const cleared = withImagesCleared(m, new Set(['report']), 'anthropic', 'claude-sonnet-4-6');
    const tokens = documentTokens('anthropic', pdf('report'), 'file', 'claude-sonnet-4-6');
    expect(cleared.content[0]).toEqual({ type: 'text', text: clearedDocumentText(pdf('report'), tokens) });
    expect(clearedDocumentText({ name: 'report.pdf', pages: 12 }, 20400)).toBe('[PDF: report.pdf, 12 pages — not sent to save 20,400 tokens]');
  });

  it('writes page markers that say the page and the total', () => {
    expect(
      pdfAsText('a.pdf', ['x', 'y', 'z'])
        .split('\n')
        .filter((l) => l.startsWith('[PDF')),
    ).toEqual(['[PDF: a.pdf — page 1 of 3]', '[PDF: a.pdf — page 2 of 3]', '[PDF: a.pdf — page 3 of 3]']);
  });
});

describe('stored and exported PDFs', () => {
  const exported = (content: unknown[]) => ({
    format: 'windowpane',
    version: 2,
    exportedAt: 1,
    conversations: [
      {
        conversation: { id: 'c', title: 'T', createdAt: 1, updatedAt: 1, messageCount: 1 },
        messages: [{ id: 'm', conversationId: 'c', seq: 1, parentId: null, role: 'user', kind: 'message', content, status: 'complete', createdAt: 1 }],
      },
    ],
  });

  it('reads a PDF block back, with or without its page counts', () => {
    const content = importEvery(JSON.stringify(exported([pdf('a'), { ...pdf('b'), pageTokens: undefined }]))).conversations[0]!.messages[0]!.content;
    expect(content[0]).toEqual(pdf('a'));
    expect(content[1]).toEqual({ type: 'document', fileId: 'b', name: 'b.pdf', mediaType: 'application/pdf', bytes: 30_000, pages: 3 });
  });

  it('refuses a PDF block with a bad page count or page list, naming the field', () => {
    const leftOut = (content: unknown[]) => {
      const result = importAll(JSON.stringify(exported(content)));
      return result.ok && result.value.conversations.length === 0 && result.value.failures.map((failure) => failure.reason);
    };
    expect(leftOut([{ ...pdf('a'), pages: 0 }])).toEqual([expect.stringContaining('pages')]);
    expect(leftOut([{ ...pdf('a'), pageTokens: [1] }])).toEqual([expect.stringContaining('pageTokens')]);
  });

  it('names a PDF in Markdown without linking it', () => {
    const md = exportToMarkdown([
      {
        conversation: { id: 'c', title: 'T', createdAt: 1, updatedAt: 1, messageCount: 1 },
        messages: [message('user', [pdf('report'), { type: 'text', text: 'Hi' }])],
      },
    ]);
    expect(md).toContain('_PDF: ` report.pdf `, 3 pages_');
    expect(md).not.toMatch(/\]\(/);
  });
});

describe('read_attachment on a PDF', () => {
  const files = [
    { name: 'report.pdf', text: 'one\n\ntwo\n\nthree', pages: ['Page one text.', 'Page two text.', 'Page three text.'] },
    { name: 'notes.txt', text: 'a\nb\n' },
  ];

  it('lists a PDF with its page count', () => {
    const out = readAttachment({}, files);
    expect(out.content).toContain('- report.pdf (PDF, 3 pages; read it with pages)');
    expect(out.content).toContain('- notes.txt (4 bytes, 2 lines)');
  });

  it('reads a range of pages, a single page, and from a page to the end', () => {
    expect(readAttachment({ name: 'report.pdf', pages: '2-3' }, files)).toEqual({
      content: 'report.pdf, pages 2–3 of 3 (text extracted from the PDF):\n[page 2 of 3]\nPage two text.\n\n[page 3 of 3]\nPage three text.',
      isError: false,
    });
    expect(readAttachment({ name: 'report.pdf', pages: '2' }, files).content).toBe(
      'report.pdf, page 2 of 3 (text extracted from the PDF):\n[page 2 of 3]\nPage two text.',
    );
    expect(readAttachment({ name: 'report.pdf', pages: 3 }, files).content).toContain('Page three text.');
    expect(readAttachment({ name: 'report.pdf', pages: '2-' }, files).content).toContain('pages 2–3 of 3');
    expect(readAttachment({ name: 'report.pdf' }, files).content).toContain('pages 1–3 of 3');
  });

  it('stops at the character limit and says which pages continue', () => {
    const long = { name: 'big.pdf', text: '', pages: Array.from({ length: 5 }, (_, i) => `${i + 1}`.repeat(8000)) };
    const out = readAttachment({ name: 'big.pdf', pages: '1-5' }, [long]);
    expect(out.isError).toBe(false);
    expect(out.content).toContain('Continue with pages "3-5"');
  });

  it('refuses a bad range, lines on a PDF and pages on a text file, saying how to call it', () => {
    expect(readAttachment({ name: 'report.pdf', pages: '5' }, files)).toEqual({ content: 'page 5 is past the end: the PDF has 3 pages.', isError: true });
    expect(readAttachment({ name: 'report.pdf', pages: '3-1' }, files).isError).toBe(true);
    expect(readAttachment({ name: 'report.pdf', pages: 'all' }, files).content).toContain('"3" or "3-5"');
    expect(readAttachment({ name: 'report.pdf', start_line: 2 }, files).content).toContain('read it by page with pages');
    expect(readAttachment({ name: 'notes.txt', pages: '1' }, files).content).toContain('read it with start_line and end_line');
    // Text files read as before.
    expect(readAttachment({ name: 'notes.txt', start_line: 2 }, files).content).toBe('notes.txt, lines 2–2 of 2:\n2\tb');
  });
});
