/**
 * Thinking across a model switch and an export round trip, in real Chromium against the fake
 * APIs, on both providers (Anthropic's Messages API; OpenAI's Responses API with encrypted
 * reasoning items).
 *
 * A switch made with "Model for the next message" while a tool loop runs applies from the next
 * message: the loop goes on with the model and the thinking it began with, as Anthropic asks
 * ("Keep one thinking configuration per assistant turn: a tool-use loop is one assistant turn",
 * Thinking in tool and multi-turn workflows, read 2026-11-29) and as OpenAI requires (a model
 * that does not reason refuses reasoning items: the fake knows the rule). The next message goes
 * to a model that does not think, with no thinking field, the app having said how the choice
 * changed; the thinking stored before stays shown; back on the thinking model, every earlier
 * thinking block goes back as it was signed.
 *
 * A conversation stopped mid tool loop (the tool round limit) and exported as JSON is imported
 * into a fresh profile, where its Thinking blocks show and the conversation goes on: Anthropic's
 * thinking signatures and redacted thinking come back byte for byte where the loop requires
 * them, and OpenAI's encrypted reasoning is kept as issued.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openReasoning } from '../fake-api/responsesAnswer';
import { startFakeApi, type FakeApi, type RecordedRequest, type ReplyContext, type ReplySpec } from '../fake-api/server';
import { launchBrowser, newPage, screenshot } from './browser';
import { exportFile, importFile, type ExportedFile } from './persistenceHelpers';
import {
  chatRequests,
  configure,
  PROVIDER_SETUPS,
  sendTurn,
  storedRecords,
  unexpectedErrors,
  until,
  waitIdle,
  type ProviderSetup,
  type StoredRecord,
} from './providersHelpers';
import { chooseStrategyAndRounds } from './toolLoopHelpers';
import { openApp } from './uiHelpers';

type Block = { type: string; thinking?: string; signature?: string; data?: string; [key: string]: unknown };
type AnthropicBody = { model: string; messages: { role: string; content: string | Block[] }[]; thinking?: unknown; output_config?: unknown };
type ResponsesItem = { type?: string; role?: string; encrypted_content?: string };
type ResponsesBody = { model: string; input: ResponsesItem[]; reasoning?: unknown; include?: unknown };

interface SwitchCase {
  name: 'anthropic' | 'openai';
  setup: ProviderSetup;
  /** The model `setup` picks, which thinks. */
  thinking: string;
  /**
   * A model the fake's endpoint lists that does not think. Every model of the app's registry
   * thinks (src/core/thinking.ts), so this is one the registry lacks: the app knows no thinking
   * controls for it and sends none.
   */
  plain: string;
}

const SWITCHES: SwitchCase[] = [
  // Claude Haiku 5.5 checks each thinking block's prefix; Claude Opus 4.8 thinks only when asked.
  { name: 'anthropic', setup: PROVIDER_SETUPS.anthropic, thinking: 'claude-haiku-5-5', plain: 'claude-opus-4-8' },
  // GPT-6 Luna reasons; GPT-4o mini does not, and refuses reasoning items.
  { name: 'openai', setup: { ...PROVIDER_SETUPS.openai, model: { custom: 'gpt-6-luna' } }, thinking: 'gpt-6-luna', plain: 'gpt-4o-mini' },
];

const LOOP_QUESTION = 'Work out the tolls on the coast road.';
const GO_ON = 'Go on from where you stopped.';

/**
 * The fake's answers: the loop question makes a run_javascript call after thinking (slowly
 * streamed the first time, so the model can be switched meanwhile), its tool result an answer
 * that thinks again; with `secondCall` that answer calls again (the round limit then stops
 * the turn). Anything else is a short answer after a short thought.
 */
function replies({ redacted = false, secondCall = false } = {}) {
  return (context: ReplyContext): ReplySpec | undefined => {
    if (context.isSummaryRequest) return undefined;
    if (context.lastUserText.includes(GO_ON)) return { thinking: 'The last snippet was not run; the sum is known anyway.', text: 'The tolls come to 5.' };
    if (context.answersToolResults) {
      return secondCall
        ? { thinking: 'Five so far; check the bridge toll with a second snippet.', toolCalls: [{ name: 'run_javascript', input: { code: '3 + 4' } }] }
        : { thinking: 'The snippet printed 5: two tolls of 2 and 3.', text: 'The tolls come to 5.' };
    }
    if (context.lastUserText === LOOP_QUESTION) {
      return {
        thinking: 'Two tolls on the coast road, one at each bridge; add them with a snippet rather than by heart, then say the total plainly.',
        redactedThinking: redacted,
        deltaDelayMs: 120,
        toolCalls: [{ name: 'run_javascript', input: { code: '2 + 3' } }],
      };
    }
    return { thinking: `Answer briefly: ${context.lastUserText.slice(0, 40)}`, text: `Noted: ${context.lastUserText.slice(0, 40)}` };
  };
}

/** What each request of a list carried of thinking, in the provider's own fields. */
function thinkingFields(request: RecordedRequest): Record<string, unknown> {
  const body = request.body as Record<string, unknown>;
  const fields: Record<string, unknown> = { model: body.model };
  for (const key of ['thinking', 'output_config', 'reasoning', 'include']) if (body[key] !== undefined) fields[key] = body[key];
  return fields;
}

function expectAccepted(requests: RecordedRequest[], where: string): void {
  for (const [index, request] of requests.entries()) {
    expect(request.validation, `${where}: request ${index + 1}`).toEqual({ ok: true });
    expect(request.status, `${where}: request ${index + 1}`).toBe(200);
    expect(request.injectedFailure, `${where}: request ${index + 1}`).toBeNull();
  }
}

/** The thinking blocks an Anthropic request sends back, in order: signatures and redacted data. */
function sentThinking(request: RecordedRequest): Block[] {
  return (request.body as AnthropicBody).messages.flatMap((m) =>
    m.role === 'assistant' && Array.isArray(m.content) ? m.content.filter((b) => b.type === 'thinking' || b.type === 'redacted_thinking') : [],
  );
}

/** The same blocks as the app stored them (what the fake issued). */
function storedThinking(records: StoredRecord[]): Block[] {
  return records.flatMap((m) => (m.role === 'assistant' ? (m.content as Block[]).filter((b) => b.type === 'thinking' || b.type === 'redacted_thinking') : []));
}

/** The fields that go back to the API, as the wire carries them. */
function wireThinking(blocks: Block[]): Array<Record<string, unknown>> {
  return blocks.map((b) => (b.type === 'redacted_thinking' ? { type: b.type, data: b.data } : { type: b.type, thinking: b.thinking, signature: b.signature }));
}

/** The encrypted reasoning items the app stored, in order. */
function storedReasoning(records: StoredRecord[]): Array<{ id: string; encryptedContent: string }> {
  return records.flatMap((m) =>
    (m.content as Array<{ type: string; reasoningItem?: { id: string; encryptedContent: string } }>).flatMap((b) => (b.reasoningItem ? [b.reasoningItem] : [])),
  );
}

const assistantArticles = (page: Page) => page.getByRole('log', { name: 'Transcript' }).getByRole('article', { name: 'Assistant message' });

/** Waits for the first answer's Thinking block under `label`, opens it and waits for its text; returns the answers. */
async function openFirstThinking(page: Page, label: RegExp) {
  const first = assistantArticles(page).first();
  const summary = first.locator('details.thinking-block > summary');
  await summary.filter({ hasText: label }).waitFor();
  await summary.click();
  await first.getByText(/^Two tolls on the coast road/).waitFor();
  return assistantArticles(page);
}

describe('thinking across a model switch and an export round trip', () => {
  let browser: Browser;
  let fake: FakeApi;
  const appUrl = inject('appUrl');
  beforeAll(async () => {
    [browser, fake] = await Promise.all([launchBrowser(), startFakeApi()]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fake?.close()]);
  });

  /** A fresh profile set up for `setup`, thinking at High. */
  async function readyPage(setup: ProviderSetup) {
    const opened = await newPage(browser);
    opened.page.setDefaultTimeout(15_000);
    await openApp(opened.page, appUrl);
    await configure(opened.page, fake, setup, { contextWindow: 200_000 });
    // The models the endpoint lists join the picker once listed. Settings lists a key that has
    // rested a moment, so a Save quicker than that lists nothing; reopened, it lists what never was.
    await opened.page.getByRole('button', { name: 'Settings' }).click();
    const dialog = opened.page.getByRole('dialog', { name: 'Settings' });
    await dialog.getByRole('button', { name: 'Refresh' }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await dialog.waitFor({ state: 'hidden' });
    await opened.page.getByRole('combobox', { name: 'Thinking for the next message' }).selectOption({ label: 'High' });
    return opened;
  }

  /**
   * A fresh profile (its own IndexedDB) made ready as `readyPage` makes it, thinking at High as
   * the loop began (the choice is a setting, not part of the file), with `file` imported.
   */
  async function importedInFreshProfile(setup: ProviderSetup, file: ExportedFile) {
    const fresh = await readyPage(setup);
    await importFile(fresh.page, file);
    await fresh.page
      .getByRole('status')
      .filter({ hasText: `Imported 1 conversation from ${file.name}` })
      .waitFor();
    return fresh;
  }

  for (const provider of SWITCHES) {
    it(`${provider.name}: a switch mid tool loop applies from the next message, to a model that does not think, and back`, { timeout: 90_000 }, async () => {
      fake.reset();
      fake.setReply(replies());
      const { page, context, errors } = await readyPage(provider.setup);
      const atHigh =
        provider.name === 'anthropic'
          ? { thinking: { type: 'adaptive', display: 'summarized' }, output_config: { effort: 'high' } }
          : { reasoning: { effort: 'high', summary: 'auto' }, include: ['reasoning.encrypted_content'] };
      const picker = page.getByRole('combobox', { name: 'Model for the next message' });

      // A first exchange that thinks.
      const first = await sendTurn(page, fake, 'Which road to Porto?');
      expectAccepted(first, 'first turn');
      expect(first.map(thinkingFields)).toEqual([{ model: provider.thinking, ...atHigh }]);

      // The tool loop: the model is switched while its first answer streams.
      const before = chatRequests(fake).length;
      await page.getByRole('textbox', { name: 'Message' }).fill(LOOP_QUESTION);
      await page.getByRole('button', { name: 'Send' }).click();
      await until(() => chatRequests(fake).length > before, 'the loop’s first request');
      await picker.selectOption(provider.plain);
      expect(chatRequests(fake).length - before, 'requests of the loop made before the switch').toBe(1);
      await page.getByText(/Thinking is now “Model default”: .+ does not take “High”\./).waitFor();
      await waitIdle(page);
      const loop = chatRequests(fake).slice(before);
      expectAccepted(loop, 'the loop');
      // Both requests of the loop went to the model it began with, thinking as it began.
      expect(loop.map(thinkingFields)).toEqual([
        { model: provider.thinking, ...atHigh },
        { model: provider.thinking, ...atHigh },
      ]);
      // The loop's second request sent the first answer's thinking back before its call.
      if (provider.name === 'anthropic') {
        const caller = (loop[1]!.body as AnthropicBody).messages.at(-2)!;
        expect((caller.content as Block[]).map((b) => b.type)).toEqual(['thinking', 'tool_use']);
      } else {
        const input = (loop[1]!.body as ResponsesBody).input;
        expect(input.slice(-3).map((item) => item.type)).toEqual(['reasoning', 'function_call', 'function_call_output']);
        expect(input.at(-3)!.encrypted_content).toBeTruthy();
      }
      await assistantArticles(page).last().getByText('The tolls come to 5.').waitFor();

      // The next message goes to the model that does not think: no thinking field, no reasoning item.
      expect(await page.getByRole('combobox', { name: 'Thinking for the next message' }).count()).toBe(0);
      const plain = await sendTurn(page, fake, 'And by the inland road?');
      expectAccepted(plain, 'on the model that does not think');
      expect(plain.map(thinkingFields)).toEqual([{ model: provider.plain }]);
      if (provider.name === 'openai') expect((plain[0]!.body as ResponsesBody).input.filter((item) => item.type === 'reasoning')).toEqual([]);
      await assistantArticles(page).last().getByText('Noted: And by the inland road?').waitFor();

      // The thinking stored before the switch is still shown, and opens; the plain answer has none.
      const answers = assistantArticles(page);
      expect(await answers.count()).toBe(4);
      const blocks = await Promise.all([0, 1, 2, 3].map((i) => answers.nth(i).locator('details.thinking-block').count()));
      expect(blocks).toEqual([1, 1, 1, 0]);
      await answers.nth(1).locator('details.thinking-block > summary').click();
      await answers
        .nth(1)
        .getByText(/^Two tolls on the coast road, one at each bridge/)
        .waitFor();
      await screenshot(page, `thinking-switch-${provider.name}`);

      // Back to the thinking model: its default stands (nothing to say), High is chosen again.
      await picker.selectOption(provider.thinking);
      const thinkingPicker = page.getByRole('combobox', { name: 'Thinking for the next message' });
      expect(await thinkingPicker.inputValue()).toBe('default');
      await thinkingPicker.selectOption({ label: 'High' });
      const back = await sendTurn(page, fake, 'Which is faster?');
      expectAccepted(back, 'back on the thinking model');
      expect(back.map(thinkingFields)).toEqual([{ model: provider.thinking, ...atHigh }]);
      if (provider.name === 'anthropic') {
        // Every thinking block written before goes back as the fake signed it (it checked each one's prefix).
        expect(wireThinking(sentThinking(back[0]!))).toEqual(wireThinking(storedThinking((await storedRecords(page)).slice(0, -1))));
        expect(sentThinking(back[0]!)).toHaveLength(3);
      } else {
        // Reasoning of earlier turns is not sent: the API drops it.
        expect((back[0]!.body as ResponsesBody).input.filter((item) => item.type === 'reasoning')).toEqual([]);
      }
      expect(unexpectedErrors(errors)).toEqual([]);
      await context.close();
    });
  }

  it(
    'anthropic: an exported conversation stopped mid tool loop goes on in a fresh profile with its thinking signatures and redacted thinking byte for byte',
    { timeout: 90_000 },
    async () => {
      fake.reset();
      fake.setReply(replies({ redacted: true, secondCall: true }));
      const setup = PROVIDER_SETUPS.anthropic;
      const { page, context, errors } = await readyPage(setup);
      // One tool round per turn: the second call is answered "Not run" and the turn stops there.
      await chooseStrategyAndRounds(page, 'auto', {}, 1);
      const made = await sendTurn(page, fake, LOOP_QUESTION);
      expectAccepted(made, 'the first profile');
      expect(made).toHaveLength(2);
      const original = await storedRecords(page);
      expect(original.map((m) => [m.role, m.content.map((b) => b.type).join(',')])).toEqual([
        ['user', 'text'],
        ['assistant', 'thinking,redacted_thinking,tool_use'],
        ['user', 'tool_result'],
        ['assistant', 'thinking,tool_use'],
        ['user', 'tool_result'],
      ]);
      const issued = wireThinking(storedThinking(original));
      const file = await exportFile(page, 'This conversation (JSON)');
      for (const block of issued) expect(file.text).toContain(String(block.signature ?? block.data));
      await context.close();

      // A fresh profile imports it and goes on: the next request continues the stopped loop.
      const fresh = await importedInFreshProfile(setup, file);
      const answers = await openFirstThinking(fresh.page, /^Thinking · \d+ words · 1 part redacted/);
      await answers.first().getByText('One part of the thinking was redacted by the provider', { exact: false }).waitFor();
      expect(await answers.nth(1).locator('details.thinking-block').count()).toBe(1);
      expect(await fresh.page.getByRole('combobox', { name: 'Thinking for the next message' }).inputValue()).toBe('effort:high');
      await screenshot(fresh.page, 'thinking-switch-imported-anthropic');

      const next = await sendTurn(fresh.page, fake, GO_ON);
      expectAccepted(next, 'the imported conversation');
      const body = next[0]!.body as AnthropicBody;
      expect(body).toMatchObject({ model: 'claude-haiku-5-5', thinking: { type: 'adaptive', display: 'summarized' }, output_config: { effort: 'high' } });
      // The answer whose call the request answers starts with its thinking, and every block is the one issued.
      const assistants = body.messages.filter((m) => m.role === 'assistant');
      expect(assistants.map((m) => (m.content as Block[]).map((b) => b.type).join(','))).toEqual(['thinking,redacted_thinking,tool_use', 'thinking,tool_use']);
      expect(wireThinking(sentThinking(next[0]!))).toEqual(issued);
      await assistantArticles(fresh.page).last().getByText('The tolls come to 5.').waitFor();
      expect(unexpectedErrors([...errors, ...fresh.errors])).toEqual([]);
      await fresh.context.close();
    },
  );

  it(
    'openai: an exported conversation stopped mid tool loop keeps its encrypted reasoning as issued and goes on in a fresh profile',
    { timeout: 90_000 },
    async () => {
      fake.reset();
      fake.setReply(replies({ secondCall: true }));
      const setup: ProviderSetup = { ...PROVIDER_SETUPS.openai, model: { custom: 'gpt-6-luna' } };
      const { page, context, errors } = await readyPage(setup);
      await chooseStrategyAndRounds(page, 'auto', {}, 1);
      const made = await sendTurn(page, fake, LOOP_QUESTION);
      expectAccepted(made, 'the first profile');
      expect(made).toHaveLength(2);
      // The loop's second request carried the first answer's reasoning, encrypted as the fake issued it.
      const sentBack = (made[1]!.body as ResponsesBody).input.filter((item) => item.type === 'reasoning').map((item) => item.encrypted_content);
      const original = storedReasoning(await storedRecords(page));
      expect(original).toHaveLength(2);
      expect(sentBack).toEqual([original[0]!.encryptedContent]);
      const file = await exportFile(page, 'This conversation (JSON)');
      for (const item of original) expect(file.text).toContain(item.encryptedContent);
      await context.close();

      const fresh = await importedInFreshProfile(setup, file);
      await openFirstThinking(fresh.page, /^Thinking · \d+ words/);
      expect(await fresh.page.getByRole('combobox', { name: 'Thinking for the next message' }).inputValue()).toBe('effort:high');
      await screenshot(fresh.page, 'thinking-switch-imported-openai');

      // Imported byte for byte, and still what the API sealed: it would take each item back in a loop.
      const imported = storedReasoning(await storedRecords(fresh.page));
      expect(imported).toEqual(original);
      for (const item of imported) expect(openReasoning(item.encryptedContent)).not.toBeNull();

      // The next message is accepted; reasoning from before it is not sent, as the API drops it.
      const next = await sendTurn(fresh.page, fake, GO_ON);
      expectAccepted(next, 'the imported conversation');
      const body = next[0]!.body as ResponsesBody;
      expect(body).toMatchObject({ model: 'gpt-6-luna', reasoning: { effort: 'high', summary: 'auto' }, include: ['reasoning.encrypted_content'] });
      expect(body.input.map((item) => item.type ?? item.role)).toEqual([
        'user',
        'function_call',
        'function_call_output',
        'function_call',
        'function_call_output',
        'user',
      ]);
      await assistantArticles(fresh.page).last().getByText('The tolls come to 5.').waitFor();
      expect(unexpectedErrors([...errors, ...fresh.errors])).toEqual([]);
      await fresh.context.close();
    },
  );
});
