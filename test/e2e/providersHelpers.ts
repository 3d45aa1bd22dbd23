/**
 * Drives the built app against the fake provider API the way a user does: through the
 * Settings dialog and the composer, by accessible names only. Reads back what the fake
 * recorded and what the app stored in IndexedDB.
 */
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';
import type { FakeApi, RecordedRequest } from '../fake-api/server';
import { openSettingsSection } from './uiHelpers';

export type ProviderUnderTest = 'anthropic' | 'openai' | 'openai-compatible';

export interface ProviderSetup {
  provider: ProviderUnderTest;
  /** The option label in the Provider select. */
  label: string;
  /** A registry model id picked from the list, or a custom id typed after "Custom model…". */
  model: { fromList: string } | { custom: string };
  baseUrl: (fake: FakeApi) => string;
  apiKey: string;
}

export const PROVIDER_SETUPS: Record<ProviderUnderTest, ProviderSetup> = {
  anthropic: {
    provider: 'anthropic',
    label: 'Anthropic',
    model: { fromList: 'claude-haiku-5-5' },
    baseUrl: (fake) => fake.url,
    apiKey: 'sk-ant-e2e-key-0123456789',
  },
  openai: {
    provider: 'openai',
    label: 'OpenAI',
    model: { custom: 'gpt-e2e-small' },
    baseUrl: (fake) => `${fake.url}/v1`,
    apiKey: 'sk-proj-e2e-key-0123456789',
  },
  'openai-compatible': {
    provider: 'openai-compatible',
    label: 'OpenAI-compatible (Ollama, LM Studio, OpenRouter…)',
    model: { custom: 'llama-e2e' },
    baseUrl: (fake) => `${fake.url}/v1`,
    apiKey: '',
  },
};

export interface WindowChoices {
  contextWindow: number;
  summarize?: boolean;
  /** Output tokens reserved per request (0 = the model's default). */
  maxOutputTokens?: number;
}

/** Opens Settings, fills provider, key, base URL, model and window knobs, and saves. */
export async function configure(page: Page, fake: FakeApi, setup: ProviderSetup, choices: WindowChoices): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.waitFor();
  await dialog.getByLabel('Provider', { exact: true }).selectOption({ label: setup.label });
  await dialog.getByLabel('API key', { exact: true }).fill(setup.apiKey);
  await dialog.getByLabel('Base URL', { exact: true }).fill(setup.baseUrl(fake));
  const model = dialog.getByLabel('Model', { exact: true });
  if ('fromList' in setup.model) {
    await model.selectOption(setup.model.fromList);
  } else {
    if ((await model.evaluate((el) => el.tagName)) === 'SELECT') await model.selectOption({ label: 'Custom model…' });
    await dialog.getByRole('textbox', { name: 'Model', exact: true }).fill(setup.model.custom);
  }
  await dialog.getByLabel('Context window', { exact: true }).fill(String(choices.contextWindow));
  if (choices.maxOutputTokens !== undefined) await dialog.getByLabel('Max output tokens', { exact: true }).fill(String(choices.maxOutputTokens));
  await openSettingsSection(page, 'Context');
  await dialog.getByLabel('Summarize evicted messages', { exact: true }).setChecked(choices.summarize ?? false);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

/**
 * Counts, from before the app loads, the requests the app page itself sends through its
 * `fetch` to a URL whose path ends in `pathEnd` (the app resolves fetch at call time, see
 * providers/modelList.ts). Frames and Workers keep their own fetch: a snippet's request,
 * made in the sandbox's Worker, is never counted. Read the count with `appFetchCount`.
 */
export async function countAppFetches(page: Page, pathEnd: string): Promise<void> {
  await page.addInitScript((end) => {
    if (window !== window.top) return;
    const counted = { n: 0 };
    (window as unknown as { __appFetches: typeof counted }).__appFetches = counted;
    const original = window.fetch.bind(window);
    window.fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input), location.href);
      if (url.pathname.endsWith(end)) counted.n += 1;
      return original(input, init);
    };
  }, pathEnd);
}

/** How many requests the app page has sent to the path given to `countAppFetches`. */
export async function appFetchCount(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as { __appFetches: { n: number } }).__appFetches.n);
}

/** Chat requests (never preflights, models or count_tokens calls) the fake received. */
export function chatRequests(fake: FakeApi): RecordedRequest[] {
  return fake.requests.filter(
    (r) => r.method === 'POST' && (r.path.endsWith('/messages') || r.path.endsWith('/chat/completions') || r.path.endsWith('/responses')),
  );
}

export async function until(condition: () => boolean, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Types `text`, presses Send, waits until the fake has seen a chat request for it and the
 * app is idle again (Stop gone, Send back). Returns the chat requests this turn made.
 */
export async function sendTurn(page: Page, fake: FakeApi, text: string): Promise<RecordedRequest[]> {
  const before = chatRequests(fake).length;
  const box = page.getByRole('textbox', { name: 'Message' });
  await box.fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
  await until(() => chatRequests(fake).length > before, `a chat request for "${text.slice(0, 30)}"`);
  await waitIdle(page);
  return chatRequests(fake).slice(before);
}

/** Waits until no answer is in flight: the composer shows Send, not Stop. */
export async function waitIdle(page: Page, timeoutMs = 20_000): Promise<void> {
  await page.getByRole('button', { name: 'Stop' }).waitFor({ state: 'hidden', timeout: timeoutMs });
  await page.getByRole('button', { name: 'Send' }).waitFor({ timeout: timeoutMs });
}

export interface StoredRow {
  id: string;
  conversationId: string;
  seq: number;
  role: string;
  kind: string;
  status: string;
  text: string;
  covers?: string[];
  error?: { code: string; message: string };
}

/** A stored message as IndexedDB holds it, content blocks and all. */
export type StoredRecord = Omit<StoredRow, 'text'> & { content: { type: string; text?: string; [key: string]: unknown }[] };

/** Every message the app stored, read straight from its IndexedDB, in seq order, as stored. */
export async function storedRecords(page: Page): Promise<StoredRecord[]> {
  const rows = await page.evaluate(
    () =>
      new Promise<StoredRecord[]>((resolve, reject) => {
        const open = indexedDB.open('windowpane');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const all = db.transaction('messages').objectStore('messages').getAll();
          all.onerror = () => reject(all.error);
          all.onsuccess = () => {
            db.close();
            resolve(all.result as StoredRecord[]);
          };
        };
      }),
  );
  return rows.sort((a, b) => a.seq - b.seq);
}

/** Every message the app stored, in seq order, with the text of its text blocks. */
export async function storedMessages(page: Page): Promise<StoredRow[]> {
  return (await storedRecords(page)).map(({ content, ...m }) => ({
    ...m,
    text: content
      .filter((b) => b.type === 'text')
      .map((b) => b.text ?? '')
      .join('\n'),
  }));
}

/** Every request was accepted by the fake's validation and fit `window` with its max_tokens. */
export function expectAllAcceptedAndFitting(requests: RecordedRequest[], window: number): void {
  for (const [index, request] of requests.entries()) {
    const where = `request ${index + 1}`;
    expect(request.validation, where).toEqual({ ok: true });
    expect(request.status, where).toBe(200);
    expect(request.completed, where).toBe(true);
    expect(request.inputTokens, where).not.toBeNull();
    expect(request.inputTokens! + requestedMaxTokens(request), where).toBeLessThanOrEqual(window);
  }
}

export interface GaugeReading {
  now: number;
  max: number;
}

export async function readGauge(page: Page): Promise<GaugeReading> {
  const meter = page.getByRole('meter', { name: 'Context usage' });
  const [now, max] = await Promise.all([meter.getAttribute('aria-valuenow'), meter.getAttribute('aria-valuemax')]);
  return { now: Number(now), max: Number(max) };
}

/** Scrolls the virtualized transcript to its top, so its first rows are rendered. */
export async function scrollTranscriptToTop(page: Page): Promise<void> {
  const log = page.getByRole('log', { name: 'Transcript' });
  for (let i = 0; i < 20; i++) {
    const top = await log.evaluate((el) => {
      el.scrollTop = 0;
      return el.scrollTop;
    });
    await page.waitForTimeout(30);
    if (top === 0 && (await log.evaluate((el) => el.scrollTop)) === 0) return;
  }
}

/** A message of a recorded request, in the Messages or Chat Completions shape. */
export interface SentMessage {
  role: string;
  content: unknown;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/**
 * The messages a recorded chat request carried. A Responses API request's input items are
 * read back as the Chat Completions messages they stand for: a function call joins the
 * assistant message before it (or starts one), its output is a `tool` message; reasoning
 * items are left out.
 */
export function sentMessages(request: RecordedRequest): SentMessage[] {
  const body = request.body as { messages?: SentMessage[]; input?: unknown } | undefined;
  if (Array.isArray(body?.messages)) return body.messages;
  if (typeof body?.input === 'string') return [{ role: 'user', content: body.input }];
  const out: SentMessage[] = [];
  let callsJoin = false;
  for (const item of (body?.input ?? []) as Record<string, unknown>[]) {
    if (item.type === 'reasoning') continue;
    if (item.type === 'function_call') {
      const call = { id: String(item.call_id), function: { name: String(item.name), arguments: String(item.arguments) } };
      const last = out.at(-1);
      if (callsJoin && last?.role === 'assistant') (last.tool_calls ??= []).push(call);
      else out.push({ role: 'assistant', content: null, tool_calls: [call] });
      callsJoin = true;
      continue;
    }
    if (item.type === 'function_call_output') out.push({ role: 'tool', tool_call_id: String(item.call_id), content: item.output });
    else out.push({ role: String(item.role), content: item.content });
    callsJoin = item.role === 'assistant';
  }
  return out;
}

/** Texts of the request's messages (and system prompt), flattened, as the fake received them. */
export function requestTexts(request: RecordedRequest): string[] {
  const body = request.body as { system?: unknown; instructions?: unknown } | undefined;
  const texts: string[] = [];
  const collect = (content: unknown) => {
    if (typeof content === 'string') texts.push(content);
    else if (Array.isArray(content))
      for (const block of content)
        if (block && typeof block === 'object' && typeof (block as { text?: unknown }).text === 'string') texts.push((block as { text: string }).text);
  };
  collect(body?.system);
  collect(body?.instructions);
  for (const message of sentMessages(request)) collect(message.content);
  return texts;
}

/** max_tokens / max_completion_tokens / max_output_tokens of a recorded chat request. */
export function requestedMaxTokens(request: RecordedRequest): number {
  const body = request.body as Record<string, unknown>;
  const value = body.max_tokens ?? body.max_completion_tokens ?? body.max_output_tokens;
  return typeof value === 'number' ? value : 0;
}

/** Page errors and console errors, minus the console lines Chromium itself writes for each failed or CORS-blocked HTTP response. */
export function unexpectedErrors(errors: readonly string[]): string[] {
  return errors.filter((e) => !/^Failed to load resource|net::ERR_|blocked by CORS policy/.test(e));
}

/** A user message of about `words` words that names its turn, so its presence can be checked anywhere. */
export function userText(turn: number, words = 90): string {
  const filler = 'we keep planning the garden beds with tomatoes basil and marigolds near the fence while the rain holds off';
  const parts = [`Turn ${turn} marker T${turn}X.`];
  const fillerWords = filler.split(' ');
  for (let i = 0; parts.length < words; i++) parts.push(fillerWords[i % fillerWords.length]!);
  return parts.join(' ');
}

export interface TranscriptWalk {
  /** Text of every user message seen while scrolling, in order of appearance. */
  userTexts: string[];
  /** Assistant messages seen, with their status. */
  assistants: { text: string; status: string; notSent: boolean }[];
  /** User and assistant messages marked "not sent". */
  notSent: number;
  /** Text of every role="note" trim notice seen. */
  trimNotes: string[];
  /** Text of every "Conversation summary" article seen. */
  summaries: string[];
}

/**
 * Scrolls the virtualized transcript from top to bottom and collects what it shows, by
 * accessible names only (articles "User message" / "Assistant message" / "Conversation
 * summary", notes). Each row is counted once, by its message id or its text.
 */
export async function walkTranscript(page: Page): Promise<TranscriptWalk> {
  await scrollTranscriptToTop(page);
  const log = page.getByRole('log', { name: 'Transcript' });
  const seen = new Set<string>();
  const walk: TranscriptWalk = { userTexts: [], assistants: [], notSent: 0, trimNotes: [], summaries: [] };
  for (let step = 0; step < 500; step++) {
    const rows = await log.evaluate((el) =>
      [...el.querySelectorAll('article[aria-label], [role="note"]')].map((node) => {
        const label = node.getAttribute('aria-label') ?? '';
        const body = node.querySelector('.message-body');
        return {
          key: node.getAttribute('data-message-id') ?? `note:${node.closest('[data-index]')?.getAttribute('data-index') ?? ''}`,
          role: node.getAttribute('role') === 'note' ? 'note' : label,
          text: (body ?? node).textContent ?? '',
          fullText: node.textContent ?? '',
          status: node.getAttribute('data-status') ?? '',
          notSent: node.classList.contains('not-sent') && (node.textContent ?? '').includes('not sent'),
        };
      }),
    );
    for (const row of rows) {
      if (seen.has(row.key)) continue;
      seen.add(row.key);
      if (row.notSent) walk.notSent++;
      if (row.role === 'User message') walk.userTexts.push(row.text);
      else if (row.role === 'Assistant message') walk.assistants.push({ text: row.text, status: row.status, notSent: row.notSent });
      else if (row.role === 'Conversation summary') walk.summaries.push(row.fullText);
      else if (row.role === 'note') walk.trimNotes.push(row.fullText);
    }
    const atEnd = await log.evaluate((el) => {
      const before = el.scrollTop;
      el.scrollTop = before + el.clientHeight * 0.7;
      return el.scrollTop === before;
    });
    await page.waitForTimeout(25);
    if (atEnd) break;
  }
  return walk;
}

/** Scrolls the virtualized transcript from the top until `locator` is rendered, then into view. */
export async function scrollTranscriptTo(page: Page, locator: Locator): Promise<void> {
  await scrollTranscriptToTop(page);
  const log = page.getByRole('log', { name: 'Transcript' });
  for (let step = 0; step < 500 && (await locator.count()) === 0; step++) {
    const atEnd = await log.evaluate((el) => {
      const before = el.scrollTop;
      el.scrollTop = before + el.clientHeight * 0.7;
      return el.scrollTop === before;
    });
    await page.waitForTimeout(25);
    if (atEnd) break;
  }
  await locator.first().scrollIntoViewIfNeeded();
}

/** Whether `locator` is wholly inside the transcript's visible area (what the reader sees without scrolling). */
export async function inTranscriptView(page: Page, locator: Locator): Promise<boolean> {
  const [box, view] = await Promise.all([locator.boundingBox(), page.getByRole('log', { name: 'Transcript' }).boundingBox()]);
  if (!box || !view) return false;
  return box.y >= view.y - 1 && box.y + box.height <= view.y + view.height + 1;
}

/** Changes only the API key in Settings (for all conversations) and saves. */
export async function setApiKey(page: Page, apiKey: string): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await dialog.getByLabel('API key', { exact: true }).fill(apiKey);
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
}
