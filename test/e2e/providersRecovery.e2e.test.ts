/**
 * Stop, and every provider failure a user can meet, against the
 * local fake of both APIs through the built app in real Chromium. Each failure must say
 * what happened in words a user can act on and leave the conversation as it was, with the
 * next message working once the failure clears.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startFakeApi, type FailureKind, type FailureOptions, type FakeApi, type RecordedRequest } from '../fake-api/server';
import { launchBrowser, newPage, screenshot } from './browser';
import {
  chatRequests,
  configure,
  inTranscriptView,
  PROVIDER_SETUPS,
  requestedMaxTokens,
  sendTurn,
  setApiKey,
  storedMessages,
  unexpectedErrors,
  until,
  userText,
  waitIdle,
  type ProviderUnderTest,
} from './providersHelpers';

const WINDOW = 6000;
const LONG_ANSWER = Array.from({ length: 150 }, (_, i) => `Paragraph ${i + 1} of the long story goes on.`).join('\n\n');

describe('Stop and provider failures against the fake API', () => {
  let browser: Browser;
  let fake: FakeApi;
  beforeAll(async () => {
    [browser, fake] = await Promise.all([launchBrowser(), startFakeApi({ contextWindow: WINDOW, deltaDelayMs: 2 })]);
  });
  afterAll(async () => {
    await Promise.all([browser?.close(), fake?.close()]);
  });

  const answers = (page: Page) => page.getByRole('article', { name: 'Assistant message' });
  /** The assistant message on screen that shows `text`. */
  const answerShowing = (page: Page, text: string | RegExp) => answers(page).filter({ hasText: text });

  /** Sends while the reply streams slowly, stops it with `how` once some text is shown, and checks what is kept. */
  async function sendAndStop(page: Page, text: string, how: (page: Page) => Promise<void>): Promise<RecordedRequest> {
    const before = chatRequests(fake).length;
    await page.getByRole('textbox', { name: 'Message' }).fill(text);
    await page.getByRole('button', { name: 'Send' }).click();
    const streaming = answers(page).filter({ hasText: 'Writing…' }).filter({ hasText: 'Paragraph 3 of' });
    await streaming.waitFor();
    const messageId = await streaming.getAttribute('data-message-id');
    await how(page);
    await waitIdle(page);
    const request = chatRequests(fake)[before]!;
    await until(() => request.aborted, 'the fake to see the request aborted');
    expect(request.completed).toBe(false);
    expect(chatRequests(fake)).toHaveLength(before + 1);

    const answer = answers(page).and(page.locator(`[data-message-id="${messageId}"]`));
    expect(await answer.getAttribute('data-status')).toBe('stopped');
    expect(await answer.getByText('Stopped', { exact: true }).isVisible()).toBe(true);
    expect(await answer.textContent()).toContain('Paragraph 3 of the long story');
    const stored = (await storedMessages(page)).find((m) => m.id === messageId)!;
    expect(stored.status).toBe('stopped');
    expect(stored.text.startsWith(LONG_ANSWER.slice(0, LONG_ANSWER.indexOf('Paragraph 4 of')))).toBe(true);
    expect(stored.text.length).toBeLessThan(LONG_ANSWER.length);
    expect(LONG_ANSWER.startsWith(stored.text)).toBe(true);
    return request;
  }

  /** The error notice carrying `text`: an alert that can be dismissed (the failed answer's own alert cannot). */
  const errorNotice = (page: Page, text: RegExp) =>
    page
      .getByRole('alert')
      .filter({ hasText: text })
      .filter({ has: page.getByRole('button', { name: 'Dismiss' }) });

  /** Dismisses the notice carrying `text` (errors stay until dismissed). */
  async function dismissNotice(page: Page, text: RegExp): Promise<void> {
    const notice = errorNotice(page, text);
    await notice.getByRole('button', { name: 'Dismiss' }).click();
    await notice.waitFor({ state: 'hidden' });
  }

  describe.each<ProviderUnderTest>(['anthropic', 'openai'])('%s', (providerId) => {
    const setup = PROVIDER_SETUPS[providerId];

    it('Stop (button and Esc) keeps the partial answer marked stopped, aborts the request, and the next message works', async () => {
      fake.reset();
      const { page, context, errors } = await newPage(browser);
      await page.goto(inject('appUrl'));
      await configure(page, fake, setup, { contextWindow: WINDOW });
      await sendTurn(page, fake, 'Hello there');

      fake.setReply((request) => (request.isSummaryRequest ? undefined : { text: LONG_ANSWER, deltas: 150, deltaDelayMs: 40 }));
      await sendAndStop(page, 'Tell me a long story', async (p) => {
        // A reader who scrolls up while the answer streams stays where they scrolled to.
        await answers(p).filter({ hasText: 'Paragraph 20 of' }).waitFor();
        const log = p.getByRole('log', { name: 'Transcript' });
        const box = (await log.boundingBox())!;
        await p.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
        await p.mouse.wheel(0, -300);
        await p.waitForTimeout(100);
        const readerAt = await log.evaluate((el) => el.scrollTop);
        await answers(p).filter({ hasText: 'Paragraph 30 of' }).waitFor({ state: 'attached' });
        const [scrollTop, distanceFromBottom] = await log.evaluate((el) => [el.scrollTop, el.scrollHeight - el.scrollTop - el.clientHeight]);
        expect(scrollTop, 'the transcript did not pull the reader back down').toBe(readerAt);
        expect(distanceFromBottom).toBeGreaterThan(300);
        await p.getByRole('button', { name: 'Stop' }).click();
      });
      await screenshot(page, `providers-${providerId}-stopped`);
      await sendAndStop(page, 'Another long story, please', async (p) => {
        // Sending takes the reader who had scrolled up back down, to follow the new answer.
        await p.getByRole('log', { name: 'Transcript' }).evaluate(
          (el) =>
            new Promise<void>((resolve) => {
              const check = () => (el.scrollHeight - el.scrollTop - el.clientHeight < 80 ? resolve() : requestAnimationFrame(check));
              check();
            }),
        );
        await p.getByRole('textbox', { name: 'Message' }).press('Escape');
      });
      // Stop before the first word: an empty answer marked stopped, which the next request leaves out.
      fake.setReply((request) => (request.isSummaryRequest ? undefined : { text: LONG_ANSWER, deltaDelayMs: 1000 }));
      const beforeEarlyStop = chatRequests(fake).length;
      await page.getByRole('textbox', { name: 'Message' }).fill('Never mind');
      await page.getByRole('button', { name: 'Send' }).click();
      await until(() => chatRequests(fake).length > beforeEarlyStop, 'the request to start');
      await page.getByRole('button', { name: 'Stop' }).click();
      await waitIdle(page);
      await until(() => chatRequests(fake)[beforeEarlyStop]!.aborted, 'the fake to see the request aborted');

      fake.setReply(null);
      const [next] = await sendTurn(page, fake, 'Thanks, that is enough');
      expect(next!.status).toBe(200);
      expect(next!.validation).toEqual({ ok: true });
      // The stopped answers are part of the history the next request carries.
      expect(JSON.stringify(next!.body)).toContain('Paragraph 1 of the long story');
      expect(await answerShowing(page, next!.replyText!).getAttribute('data-status')).toBe('complete');
      const stored = await storedMessages(page);
      expect(stored.filter((m) => m.role === 'user').map((m) => m.text)).toEqual([
        'Hello there',
        'Tell me a long story',
        'Another long story, please',
        'Never mind',
        'Thanks, that is enough',
      ]);
      expect(stored.filter((m) => m.role === 'assistant').map((m) => [m.status, m.text === ''])).toEqual([
        ['complete', false],
        ['stopped', false],
        ['stopped', false],
        ['stopped', true],
        ['complete', false],
      ]);
      expect(unexpectedErrors(errors)).toEqual([]);
      await context.close();
    });

    it('shows each failure in words a user can act on and keeps the conversation intact', async () => {
      fake.reset();
      const { page, context, errors } = await newPage(browser);
      await page.goto(inject('appUrl'));
      await configure(page, fake, setup, { contextWindow: WINDOW });
      let turn = 0;
      const send = async () => sendTurn(page, fake, userText(++turn, 30));
      await send();
      await send();

      /**
       * `arrange` makes the next turn fail; the turn must show `message` (in a notice and in the
       * failed answer, in view), keep every earlier message and the user's new one, and after
       * `clear` the next turn must work.
       */
      const failsThenRecovers = async (
        name: string,
        arrange: () => Promise<void> | void,
        check: (made: RecordedRequest[]) => void,
        message: RegExp,
        clear: () => Promise<void> | void = () => {},
      ) => {
        const storedBefore = await storedMessages(page);
        await arrange();
        const made = await send();
        check(made);
        const alert = errorNotice(page, message);
        await alert.waitFor();
        expect(await alert.textContent()).not.toContain(setup.apiKey || 'no key to leak');
        const storedAfter = await storedMessages(page);
        // Nothing earlier changed; the user's message is kept, and so is the failed answer with its error.
        expect(storedAfter.slice(0, storedBefore.length)).toEqual(storedBefore);
        expect(storedAfter.slice(storedBefore.length).map((m) => [m.role, m.status])).toEqual([
          ['user', 'complete'],
          ['assistant', 'error'],
        ]);
        // The failed answer says the same in place, and the transcript still follows the
        // conversation: the failed answer and its reason are in view.
        const failed = answers(page).and(page.locator(`[data-message-id="${storedAfter.at(-1)!.id}"]`));
        expect(await failed.count(), `${name}: the failed answer is rendered`).toBe(1);
        expect(await failed.getAttribute('data-status')).toBe('error');
        expect(await failed.getByRole('alert').textContent()).toMatch(message);
        expect(await inTranscriptView(page, failed.getByRole('alert')), `${name}: the reason is in view`).toBe(true);
        expect(
          await page
            .getByRole('article', { name: 'User message' })
            .filter({ hasText: `T${turn - 1}X.` })
            .isVisible(),
        ).toBe(true);
        await screenshot(page, `providers-${providerId}-error-${name}`);

        await dismissNotice(page, message);
        await clear();
        const [next] = await send();
        expect(next!.status, `${name}: the next turn`).toBe(200);
        expect(next!.validation).toEqual({ ok: true });
        expect(await answerShowing(page, next!.replyText!).getAttribute('data-status')).toBe('complete');
        return storedAfter.at(-1)!;
      };
      const injected = (kind: FailureKind, options: FailureOptions, message: RegExp) =>
        failsThenRecovers(
          kind,
          () => fake.failNext(kind, options),
          (made) => expect(made.every((r) => r.injectedFailure === kind) && made.length === (options.times ?? 1), `${kind}: every attempt failed`).toBe(true),
          message,
        );

      // A wrong key typed in Settings, then corrected there.
      await failsThenRecovers(
        'bad-key',
        () => setApiKey(page, `${setup.apiKey}-invalid`),
        (made) => expect(made.map((r) => r.status)).toEqual([401]),
        /API key was rejected.*Check it in Settings/,
        () => setApiKey(page, setup.apiKey),
      );
      await injected('529', { times: 3, retryAfterSeconds: 0.05 }, /overloaded right now\. Your message is kept/);
      await injected('network', { times: 3 }, /Could not reach .*Check your internet connection/);
      await injected('cors', { times: 3 }, /Could not reach .*base URL in Settings/);
      await injected('unknown_model', {}, /model “[^”]+” was not found.*Choose another model in Settings/);
      // A failure after the 200, inside the stream: the part that arrived is kept with the error.
      const midStream = await failsThenRecovers(
        'mid-stream',
        () =>
          fake.setReply((request) =>
            request.isSummaryRequest ? undefined : { text: 'The first words arrived before the failure cut the rest.', deltas: 6, streamErrorAfterDeltas: 2 },
          ),
        (made) => expect(made.map((r) => [r.status, r.completed])).toEqual([[200, true]]),
        providerId === 'anthropic' ? /Anthropic is overloaded right now/ : /OpenAI had an internal error/,
        () => fake.setReply(null),
      );
      expect(midStream.text.length).toBeGreaterThan(0);
      expect('The first words arrived before the failure cut the rest.'.startsWith(midStream.text)).toBe(true);

      // 429 with retry-after: the SDK waits and retries; the UI says so while it waits.
      fake.failNext('429', { retryAfterSeconds: 1 });
      const beforeRateLimit = chatRequests(fake).length;
      await page.getByRole('textbox', { name: 'Message' }).fill(userText(++turn, 30));
      await page.getByRole('button', { name: 'Send' }).click();
      const retrying = page.getByRole('status').filter({ hasText: /Rate limited; retrying in 1 s/ });
      await retrying.waitFor();
      await screenshot(page, `providers-${providerId}-retrying`);
      await waitIdle(page);
      const rateLimited = chatRequests(fake).slice(beforeRateLimit);
      expect(rateLimited.map((r) => r.status)).toEqual([429, 200]);
      expect(rateLimited[0]!.injectedFailure).toBe('429');
      expect(await answerShowing(page, rateLimited[1]!.replyText!).getAttribute('data-status')).toBe('complete');

      // Context length exceeded, with a limit below what the request holds (as when the window set in
      // Settings is larger than the real one): the provider's count and limit are read, the plan is
      // made again to fit that limit, and the request retried once.
      // OpenAI's Responses API states no counts (its stream ends with an error event after the 200):
      // the plan is made again within 90 % of the window.
      const statesCounts = providerId !== 'openai';
      const limit = chatRequests(fake).at(-1)!.inputTokens!;
      fake.failNext('context', { maximumTokens: limit });
      const made = await send();
      expect(made.map((r) => r.status)).toEqual([statesCounts ? 400 : 200, 200]);
      expect(made[0]!.injectedFailure).toBe('context');
      expect(made[0]!.inputTokens).toBeGreaterThan(limit);
      const retry = made[1]!;
      expect(retry.validation).toEqual({ ok: true });
      const fitsWithin = statesCounts ? limit : Math.floor(WINDOW * 0.9);
      expect(retry.inputTokens! + requestedMaxTokens(retry), 'the retry fits the limit the provider stated, or 90 % of the window').toBeLessThanOrEqual(
        fitsWithin,
      );
      expect(JSON.stringify(retry.body)).toContain(`T${turn}X.`);
      await page
        .getByRole('status')
        .filter({
          hasText: statesCounts
            ? /The provider counted [\d,]+ tokens, over its [\d,]+ limit\. Windowpane recalibrated/
            : /too long for its window, without counts\. Windowpane trimmed \d+ more message\(s\) to plan within [\d,]+ tokens and retried/,
        })
        .waitFor();
      expect(await answerShowing(page, retry.replyText!).getAttribute('data-status')).toBe('complete');
      await screenshot(page, `providers-${providerId}-context-retry`);

      // Every user message is still stored, in order; every failure left only its own error.
      const stored = await storedMessages(page);
      const users = stored.filter((m) => m.role === 'user');
      expect(users.map((m) => /T(\d+)X\./.exec(m.text)?.[1])).toEqual(Array.from({ length: turn }, (_, i) => String(i + 1)));
      expect(stored.filter((m) => m.status === 'error')).toHaveLength(6);
      expect(chatRequests(fake).every((r) => r.validation.ok || r.injectedFailure === 'context')).toBe(true);
      expect(unexpectedErrors(errors)).toEqual([]);
      await context.close();
    });
  });
});
