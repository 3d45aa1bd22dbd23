/**
 * Images through the store, as the composer hands them over: checked and kept in the
 * composer, stored as files on Send, referred to by the message, read and encoded only
 * when a request is built, and older ones left out of requests past the setting. Real
 * store, fake IndexedDB, a scripted provider recording what it is sent.
 */
import { File as NodeFile } from 'node:buffer';
import { IDBFactory } from 'fake-indexeddb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { imageTokens, WindowpaneError, type ContentBlock } from '../../src/core';
import { validateRequest } from '../core/validateRequest';
import type { ChatProvider, ChatRequest } from '../../src/providers';
import type { Runtime } from '../../src/store/runtime';
import { addDraftImages } from '../../src/store/imageActions';
import { removeDraftImage } from '../../src/store/filesShown';
import { contextFor, planFor } from '../../src/store/planning';
import * as chat from '../../src/store/sendPipeline';
import { shownBranch } from '../../src/store/branches';
import { deleteAttachmentsOf, loadStorageView } from '../../src/store/storageView';
import { DEFAULT_SETTINGS } from '../../src/store/settings';
import { answer, scriptedRuntime, settled } from './scriptedStore';

const PNG_BYTES = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3, 4]);
// Node's File, which survives IndexedDB's structured clone as a browser's does (jsdom's does not).
const png = (name: string) => new NodeFile([PNG_BYTES], name, { type: 'image/png' }) as unknown as File;
const base64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

async function start(provider: 'anthropic' | 'openai' = 'anthropic', keepImages = 4, refuseImages = false): Promise<{ rt: Runtime; requests: ChatRequest[] }> {
  globalThis.indexedDB = new IDBFactory();
  const requests: ChatRequest[] = [];
  const fake: ChatProvider = {
    id: provider,
    wireShape: provider,
    async send(request) {
      requests.push({ ...request, messages: structuredClone(request.messages) as ChatRequest['messages'] });
      if (refuseImages && imagesIn(request).length > 0) {
        throw new WindowpaneError(
          'bad_request',
          'gpt-6.2-sol cannot read images (OpenAI said: Invalid content type. image_url is only supported by certain models.)',
          {
            imagesUnsupported: true,
          },
        );
      }
      return answer([{ type: 'text', text: `seen ${requests.length}` }]);
    },
    async complete() {
      return 'summary';
    },
  };
  const rt = await scriptedRuntime(fake);
  // The browser decodes and scales in a Worker; here every file is a 1200×800 image as it is.
  rt.deps.prepareImage = async (file) => ({ ok: true, blob: file, mediaType: 'image/png', width: 1200, height: 800 });
  const model = provider === 'anthropic' ? 'claude-opus-5-5' : 'gpt-6.2-sol';
  rt.store.setState({
    settings: {
      ...DEFAULT_SETTINGS,
      provider,
      apiKeys: { [provider]: 'sk-test-key-0123456789' },
      models: { [provider]: model },
      window: { ...DEFAULT_SETTINGS.window, keepImages },
    },
  });
  return { rt, requests };
}

async function sendWith(rt: Runtime, text: string, files: File[]): Promise<void> {
  await addDraftImages(rt, files);
  expect(chat.send(rt, rt.store.getState().activeId, text)).toBe(true);
  await settled(rt);
}

const imagesIn = (request: ChatRequest) =>
  request.messages.flatMap((m) =>
    Array.isArray(m.content) ? (m.content as { type: string }[]).filter((b) => b.type === 'image' || b.type === 'image_url') : [],
  );

beforeEach(() => {
  globalThis.indexedDB = new IDBFactory();
});

describe('images sent with a message', () => {
  it('stores the image as a file, refers to it from the message, and sends its bytes to Anthropic', async () => {
    const { rt, requests } = await start('anthropic');
    await sendWith(rt, 'What is on this screen?', [png('screen.png')]);
    const [user] = shownBranch(rt.store.getState(), rt.store.getState().activeId);
    const block = user!.content[0] as Extract<ContentBlock, { type: 'image' }>;
    expect(block).toMatchObject({ type: 'image', name: 'screen.png', mediaType: 'image/png', width: 1200, height: 800, bytes: PNG_BYTES.length });
    expect(user!.content[1]).toEqual({ type: 'text', text: 'What is on this screen?' });
    // The message record holds no bytes; the file does.
    expect(JSON.stringify(user)).not.toContain(base64(PNG_BYTES));
    const stored = await rt.repositories.files.getFile(block.fileId);
    expect(new Uint8Array(await stored!.blob.arrayBuffer())).toEqual(PNG_BYTES);
    expect(requests[0]!.messages[0]!.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: base64(PNG_BYTES) } },
      { type: 'text', text: 'What is on this screen?' },
    ]);
    expect(rt.store.getState().draftImages).toEqual([]);
  });

  it('sends an image alone, as an OpenAI data URL part', async () => {
    const { rt, requests } = await start('openai');
    await sendWith(rt, '', [png('chart.png')]);
    expect(requests[0]!.messages.at(-1)!.content).toEqual([{ type: 'image_url', image_url: { url: `data:image/png;base64,${base64(PNG_BYTES)}` } }]);
  });

  it('refuses a file that is not one of the four image types, naming it, and keeps the others', async () => {
    const { rt } = await start();
    await addDraftImages(rt, [new NodeFile(['<svg/>'], 'logo.svg', { type: 'image/svg+xml' }) as unknown as File, png('ok.png')]);
    expect(rt.store.getState().draftImages.map((i) => i.name)).toEqual(['ok.png']);
    expect(rt.store.getState().notices.at(-1)!.text).toBe('logo.svg is not an image Windowpane can send (PNG, JPEG, GIF or WebP).');
    rt.deps.prepareImage = async () => ({ ok: false, reason: 'the image is damaged or cannot be decoded.' });
    await addDraftImages(rt, [png('broken.png')]);
    expect(rt.store.getState().notices.at(-1)!.text).toBe('broken.png could not be added: the image is damaged or cannot be decoded.');
  });

  it('adds images pasted one after another in that order, however long each takes', async () => {
    const { rt } = await start();
    const slow = rt.deps.prepareImage!;
    rt.deps.prepareImage = async (file) => {
      if (file.name === 'large.png') await new Promise((resolve) => setTimeout(resolve, 50));
      return slow(file);
    };
    await Promise.all([addDraftImages(rt, [png('large.png')]), addDraftImages(rt, [png('small.png')])]);
    expect(rt.store.getState().draftImages.map((i) => i.name)).toEqual(['large.png', 'small.png']);
  });

  it('removes an image from the composer with Undo putting it back in its place', async () => {
    const { rt } = await start();
    await addDraftImages(rt, [png('a.png'), png('b.png'), png('c.png')]);
    const [, b] = rt.store.getState().draftImages;
    removeDraftImage(rt, b!.id);
    expect(rt.store.getState().draftImages.map((i) => i.name)).toEqual(['a.png', 'c.png']);
    rt.store.getState().notices.at(-1)!.action!.run();
    expect(rt.store.getState().draftImages.map((i) => i.name)).toEqual(['a.png', 'b.png', 'c.png']);
  });
});

describe('older images left out of requests', () => {
  it('sends the newest N images and a one-line note for each older one, every request valid', async () => {
    const { rt, requests } = await start('anthropic', 2);
    for (const n of [1, 2, 3]) await sendWith(rt, `Picture ${n}`, [png(`p${n}.png`)]);
    expect(requests.map((r) => imagesIn(r).length)).toEqual([1, 2, 2]);
    const first = requests[2]!.messages[0]!.content as { type: string; text?: string }[];
    expect(first[0]).toEqual({
      type: 'text',
      text: `[image: p1.png, 1200×800 — not sent to save ${imageTokens('anthropic', 1200, 800, 'claude-opus-5-5').toLocaleString('en-US')} tokens]`,
    });
    for (const request of requests) expect(validateRequest(request.messages, { provider: 'anthropic' }).ok).toBe(true);
    // The plan counts the image sent by its formula and the one left out as its note.
    const ctx = contextFor(rt, rt.store.getState().activeId);
    const plan = planFor(ctx, shownBranch(rt.store.getState(), rt.store.getState().activeId));
    expect(plan.metrics.inputTokens).toBeGreaterThan(2 * imageTokens('anthropic', 1200, 800, 'claude-opus-5-5'));
  });

  it('sends a line saying so for an image whose file was deleted', async () => {
    const { rt, requests } = await start('anthropic');
    await sendWith(rt, 'Keep this', [png('gone.png')]);
    const id = rt.store.getState().activeId!;
    await rt.repositories.conversations.deleteConversation(id).then((deleted) => rt.repositories.conversations.restoreConversation({ ...deleted!, files: [] }));
    expect(chat.send(rt, id, 'Still there?')).toBe(true);
    await settled(rt);
    expect(requests[1]!.messages[0]!.content).toEqual([
      { type: 'text', text: '[image: gone.png — the file was deleted, so it is not sent]' },
      { type: 'text', text: 'Keep this' },
    ]);
  });
});

describe('a model that cannot read images', () => {
  it('names the model, sends the turn again with a note for each image, and sends it none after', async () => {
    const { rt, requests } = await start('openai', 4, true);
    await sendWith(rt, 'What does this chart say?', [png('chart.png')]);
    expect(requests.map((r) => imagesIn(r).length)).toEqual([1, 0]);
    expect(requests[1]!.messages.at(-1)!.content).toBe(
      `[image: chart.png, 1200×800 — not sent to save ${imageTokens('openai', 1200, 800, 'gpt-6.2-sol').toLocaleString('en-US')} tokens]\nWhat does this chart say?`,
    );
    expect(rt.store.getState().notices.map((n) => n.text)).toContain(
      'gpt-6.2-sol cannot read images (OpenAI said: Invalid content type. image_url is only supported by certain models.) Windowpane sent the message again without its images, and will send gpt-6.2-sol none in this visit; they stay in the conversation. Pick a model that reads images to send them.',
    );
    const answers = shownBranch(rt.store.getState(), rt.store.getState().activeId).filter((m) => m.role === 'assistant');
    expect(answers.map((m) => m.status)).toEqual(['complete']);
    await sendWith(rt, 'And this one?', [png('second.png')]);
    expect(requests.slice(2).map((r) => imagesIn(r).length)).toEqual([0]);
  });
});

describe('images in the Storage section', () => {
  it('counts the images a conversation holds, and deletes them with its attachments, Undo putting them back', async () => {
    const { rt, requests } = await start('anthropic');
    await sendWith(rt, 'Two pictures', [png('a.png'), png('b.png')]);
    const id = rt.store.getState().activeId!;
    await loadStorageView(rt);
    const row = () => rt.store.getState().storageView!.report!.conversations.find((c) => c.id === id)!;
    expect(row().attachments).toBe(2);
    expect(row().attachmentBytes).toBeGreaterThan(2 * PNG_BYTES.length);

    await deleteAttachmentsOf(rt, id);
    expect(row()).toMatchObject({ attachments: 0, attachmentBytes: 0 });
    const notice = rt.store.getState().notices.find((n) => n.text.startsWith('Deleted 2 attached files'))!;
    expect(chat.send(rt, id, 'Still there?')).toBe(true);
    await settled(rt);
    expect(JSON.stringify(requests.at(-1)!.messages[0]!.content)).toContain('[image: a.png — the file was deleted, so it is not sent]');

    notice.action!.run();
    await vi.waitFor(async () => expect(await rt.repositories.files.getFile(imageIds(rt)[0]!)).toBeDefined());
    expect(row().attachments).toBe(2);
  });
});

const imageIds = (rt: Runtime) =>
  shownBranch(rt.store.getState(), rt.store.getState().activeId).flatMap((m) => m.content.flatMap((b) => (b.type === 'image' ? [b.fileId] : [])));
