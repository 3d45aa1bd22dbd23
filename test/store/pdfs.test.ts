/**
 * PDFs through the store, as the composer hands them over: read and checked in the
 * composer, stored as files with their page texts on Send, referred to by the message,
 * sent as the file or as text with page markers, left out past the setting, and read by
 * page with read_attachment. Real store, fake IndexedDB, a scripted provider.
 */
import { File as NodeFile } from 'node:buffer';
import { IDBFactory } from 'fake-indexeddb';
import { beforeEach, describe, expect, it } from 'vitest';
import { WindowpaneError, type ContentBlock, type ProviderId, type ToolResultBlock } from '../../src/core';
import { validateRequest } from '../core/validateRequest';
import type { ChatProvider, ChatRequest } from '../../src/providers';
import type { Runtime } from '../../src/store/runtime';
import { shownBranch } from '../../src/store/branches';
import { addDraftPdfs } from '../../src/store/pdfActions';
import { removeDraftPdf } from '../../src/store/filesShown';
import * as chat from '../../src/store/sendPipeline';
import { chatView } from '../../src/store/chatView';
import { contextFor, planFor } from '../../src/store/planning';
import { DEFAULT_SETTINGS } from '../../src/store/settings';
import { answer, scriptedRuntime, settled } from './scriptedStore';

/** A stand-in PDF: a real header, and its pages' texts after it, split by form feeds (what the fake reader returns). */
const pdfFile = (name: string, pages: string[]) => new NodeFile([`%PDF-1.7\n${pages.join('\f')}`], name, { type: 'application/pdf' }) as unknown as File;
const base64 = (text: string) => btoa(text);

type Script = (request: ChatRequest, n: number) => ReturnType<typeof answer>;

async function start(provider: ProviderId = 'anthropic', model = 'claude-opus-5-5', script?: Script): Promise<{ rt: Runtime; requests: ChatRequest[] }> {
  globalThis.indexedDB = new IDBFactory();
  const requests: ChatRequest[] = [];
  const fake: ChatProvider = {
    id: provider,
    wireShape: provider === 'anthropic' ? 'anthropic' : 'openai',
    async send(request) {
      requests.push({ ...request, messages: structuredClone(request.messages) as ChatRequest['messages'] });
      return script ? script(request, requests.length) : answer([{ type: 'text', text: `seen ${requests.length}` }]);
    },
    async complete() {
      return 'summary';
    },
  };
  const rt = await scriptedRuntime(fake);
  // The browser reads pages with PDF.js in a Worker; here the pages follow the header.
  rt.deps.readPdf = async (file) => {
    const text = await file.text();
    if (text.includes('ENCRYPTED')) return { ok: false, reason: 'it is protected by a password.' };
    const pageTexts = text.slice(text.indexOf('\n') + 1).split('\f');
    return { ok: true, pages: pageTexts.length, pageTexts };
  };
  rt.store.setState({
    settings: {
      ...DEFAULT_SETTINGS,
      provider,
      apiKeys: { [provider]: 'sk-test-key-0123456789' },
      models: { [provider]: model },
      baseUrls: provider === 'openai-compatible' ? { 'openai-compatible': 'http://localhost:11434/v1' } : {},
    },
  });
  return { rt, requests };
}

async function sendWith(rt: Runtime, text: string, files: File[]): Promise<void> {
  await addDraftPdfs(rt, files);
  expect(chat.send(rt, rt.store.getState().activeId, text)).toBe(true);
  await settled(rt);
}

beforeEach(() => {
  globalThis.indexedDB = new IDBFactory();
});

describe('PDFs sent with a message', () => {
  it('stores the PDF with its page texts, refers to it from the message, and sends Anthropic a document block', async () => {
    const { rt, requests } = await start('anthropic');
    const file = pdfFile('report.pdf', ['Revenue grew.', 'Costs fell.']);
    await sendWith(rt, 'Summarize this.', [file]);
    const [user] = shownBranch(rt.store.getState(), rt.store.getState().activeId);
    const block = user!.content[0] as Extract<ContentBlock, { type: 'document' }>;
    expect(block).toMatchObject({ type: 'document', name: 'report.pdf', mediaType: 'application/pdf', pages: 2, bytes: file.size });
    expect(block.pageTokens).toHaveLength(2);
    const stored = await rt.repositories.files.getFile(block.fileId);
    expect(stored!.pageTexts).toEqual(['Revenue grew.', 'Costs fell.']);
    const bytes = `%PDF-1.7\nRevenue grew.\fCosts fell.`;
    expect(requests[0]!.messages[0]!.content).toEqual([
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: base64(bytes) } },
      { type: 'text', text: 'Summarize this.' },
    ]);
    expect(JSON.stringify(user)).not.toContain(base64(bytes));
    expect(validateRequest(requests[0]!.messages).ok).toBe(true);
    expect(rt.store.getState().draftPdfs).toEqual([]);
  });

  it('sends OpenAI a file part, and a model without PDFs (or a compatible server) the text with page markers', async () => {
    const openai = await start('openai', 'gpt-6.2-sol');
    await sendWith(openai.rt, '', [pdfFile('a.pdf', ['One'])]);
    expect(openai.requests[0]!.messages.at(-1)!.content).toEqual([
      { type: 'file', file: { filename: 'a.pdf', file_data: `data:application/pdf;base64,${base64('%PDF-1.7\nOne')}` } },
    ]);

    const local = await start('openai-compatible', 'llama3.2');
    await sendWith(local.rt, 'Typos?', [pdfFile('notes.pdf', ['Frist page', 'Second page'])]);
    expect(local.requests[0]!.messages.at(-1)!.content).toEqual([
      { type: 'text', text: '[PDF: notes.pdf — page 1 of 2]\nFrist page\n\n[PDF: notes.pdf — page 2 of 2]\nSecond page' },
      { type: 'text', text: 'Typos?' },
    ]);
  });

  it('refuses a non-PDF named .pdf, an encrypted PDF and one over the page limit, naming each, and keeps the good one', async () => {
    const { rt } = await start('anthropic', 'claude-opus-5-5');
    const fake = new NodeFile(['<html>not a pdf</html>'], 'invoice.pdf', { type: 'application/pdf' }) as unknown as File;
    const locked = pdfFile('locked.pdf', ['ENCRYPTED']);
    const huge = pdfFile(
      'huge.pdf',
      Array.from({ length: 601 }, () => 'x'),
    );
    await addDraftPdfs(rt, [fake, locked, huge, pdfFile('ok.pdf', ['fine'])]);
    expect(rt.store.getState().draftPdfs.map((p) => p.name)).toEqual(['ok.pdf']);
    const text = rt.store.getState().notices.at(-1)!.text;
    expect(text).toContain('invoice.pdf is not a PDF (its contents say otherwise).');
    expect(text).toContain('locked.pdf could not be added: it is protected by a password.');
    expect(text).toMatch(/huge\.pdf has 601 pages; a request may carry at most (100|600)\./);
  });

  it('removes a PDF from the composer with Undo putting it back', async () => {
    const { rt } = await start();
    await addDraftPdfs(rt, [pdfFile('a.pdf', ['a']), pdfFile('b.pdf', ['b'])]);
    removeDraftPdf(rt, rt.store.getState().draftPdfs[0]!.id);
    expect(rt.store.getState().draftPdfs.map((p) => p.name)).toEqual(['b.pdf']);
    rt.store.getState().notices.at(-1)!.action!.run();
    expect(rt.store.getState().draftPdfs.map((p) => p.name)).toEqual(['a.pdf', 'b.pdf']);
  });

  it('leaves older PDFs out past "Images and PDFs sent per request", as a note naming them', async () => {
    const { rt, requests } = await start();
    rt.store.setState((s) => ({ settings: { ...s.settings, window: { ...s.settings.window, keepImages: 1 } } }));
    await sendWith(rt, 'first', [pdfFile('old.pdf', ['old'])]);
    await sendWith(rt, 'second', [pdfFile('new.pdf', ['new'])]);
    const last = requests.at(-1)!.messages;
    expect(JSON.stringify(last[0]!.content)).toMatch(/\[PDF: old\.pdf, 1 page — not sent to save [\d,]+ tokens\]/);
    expect((last.at(-1)!.content as { type: string }[])[0]!.type).toBe('document');
    // The transcript marks the same PDF "not sent", and the gauge counts the one sent.
    const id = rt.store.getState().activeId!;
    const messages = shownBranch(rt.store.getState(), id);
    const ctx = contextFor(rt, id);
    const view = chatView(ctx, messages, planFor(ctx, messages), undefined, 0);
    const notSent = view.rows.flatMap((row) => (row.kind === 'message' ? (row.imagesNotSent ?? []) : []));
    const oldPdf = messages[0]!.content.find((b) => b.type === 'document') as Extract<ContentBlock, { type: 'document' }>;
    expect(notSent).toEqual([oldPdf.fileId]);
    expect(view.gauge.parts.find((p) => p.label === 'Images and PDFs')!.tokens).toBeGreaterThan(1000);
  });

  it('lets the model read a PDF by pages with read_attachment', async () => {
    let result: ToolResultBlock | undefined;
    const { rt, requests } = await start('anthropic', 'claude-opus-5-5', (request, n) => {
      if (n === 1) return answer([{ type: 'tool_use', id: 'call-1', name: 'read_attachment', input: { name: 'book.pdf', pages: '2-3' } }]);
      const content = request.messages.at(-1)!.content as unknown as ToolResultBlock[];
      result = content.find((b) => b.type === 'tool_result');
      return answer([{ type: 'text', text: 'Read it.' }]);
    });
    await sendWith(rt, 'What do pages 2 and 3 say?', [pdfFile('book.pdf', ['Intro', 'Chapter one', 'Chapter two', 'End'])]);
    // Offered because the conversation holds a PDF, though no text file is attached.
    expect(requests[0]!.tools?.map((t) => t.name)).toContain('read_attachment');
    expect(result?.content).toBe('book.pdf, pages 2–3 of 4 (text extracted from the PDF):\n[page 2 of 4]\nChapter one\n\n[page 3 of 4]\nChapter two');
  });

  it('sends the text of its PDFs again when the model refuses the file, and says so', async () => {
    const { rt, requests } = await start('anthropic', 'claude-opus-5-5', (request) => {
      if (JSON.stringify(request.messages).includes('"document"'))
        throw new WindowpaneError('bad_request', 'claude-opus-5-5 cannot read PDFs (Anthropic said: claude-opus-5-5 does not support PDFs.)', {
          imagesUnsupported: true,
        });
      return answer([{ type: 'text', text: 'Read the text.' }]);
    });
    await sendWith(rt, 'Summarize.', [pdfFile('memo.pdf', ['Only page'])]);
    expect(requests).toHaveLength(2);
    expect(requests[1]!.messages[0]!.content).toEqual([
      { type: 'text', text: '[PDF: memo.pdf — page 1 of 1]\nOnly page' },
      expect.objectContaining({ type: 'text', text: 'Summarize.' }),
    ]);
    expect(rt.store.getState().notices.at(-1)!.text).toContain("Windowpane sent the message again with each PDF's text instead of the file");
  });

  it('reads the text again from the bytes of a PDF stored without its page texts', async () => {
    const { rt, requests } = await start('openai-compatible', 'llama3.2');
    await sendWith(rt, 'first', [pdfFile('old.pdf', ['Kept text'])]);
    const [user] = shownBranch(rt.store.getState(), rt.store.getState().activeId);
    const block = user!.content[0] as Extract<ContentBlock, { type: 'document' }>;
    const record = (await rt.repositories.files.getFile(block.fileId))!;
    // As a backup without the page texts restores it.
    const { pageTexts: _dropped, ...bare } = record;
    await rt.repositories.files.addFiles([bare]);
    expect(chat.send(rt, rt.store.getState().activeId, 'again')).toBe(true);
    await settled(rt);
    expect(JSON.stringify(requests.at(-1)!.messages)).toContain('[PDF: old.pdf — page 1 of 1]\\nKept text');
  });
});
