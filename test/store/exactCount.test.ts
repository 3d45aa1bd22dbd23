/**
 * The provider's exact count of the next request, through the real store on fake IndexedDB:
 * counted once per distinct request, paced, backed off quietly on a 429, never trusted when it
 * fails, and fed to the model's calibration as an answer's reported input is.
 */
import { IDBFactory } from 'fake-indexeddb';
import { beforeEach, describe, expect, it } from 'vitest';
import { WindowpaneError } from '../../src/core';
import { randomUuid, openWindowpaneStorage } from '../../src/persistence';
import type { ChatProvider, ChatRequest } from '../../src/providers';
import { shownBranch } from '../../src/store/branches';
import { rawEstimate } from '../../src/store/calibration';
import { COUNT_INTERVAL_MS, countRequest, type CountJob } from '../../src/store/exactCount';
import { hydrate } from '../../src/store/hydrate';
import { contextFor, planFor } from '../../src/store/planning';
import { nearALimit, requestKeyOf } from '../../src/store/requestCounts';
import { createRuntime, type Runtime } from '../../src/store/runtime';
import { DEFAULT_SETTINGS } from '../../src/store/settings';
import { answer, sendAndSettle } from './scriptedStore';

const MODEL = 'claude-sonnet-4-6';
const LONG = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');

/** A provider whose count is `answers` in turn (a number, or an error to throw); every counted request is kept. */
function countingProvider(answers: Array<number | Error>, counted: ChatRequest[]): ChatProvider {
  return {
    id: 'anthropic',
    wireShape: 'anthropic',
    send: async () => answer([{ type: 'text', text: 'An answer.' }]),
    complete: async () => '',
    countTokens: async (request) => {
      counted.push(request);
      const next = answers.shift();
      if (next === undefined) throw new Error('no count scripted');
      if (next instanceof Error) throw next;
      return next;
    },
  };
}

let clock = 1_000_000;
async function runtimeWith(provider: ChatProvider): Promise<Runtime> {
  const rt = createRuntime({
    openStorage: () => openWindowpaneStorage(),
    createProvider: async () => provider,
    now: () => clock,
    newId: randomUuid,
    runJavascript: async () => ({ logs: [], result: '', truncated: false }),
  });
  await hydrate(rt);
  rt.store.setState({
    settings: {
      ...DEFAULT_SETTINGS,
      provider: 'anthropic',
      apiKeys: { anthropic: 'sk-ant-test-0123456789' },
      models: { anthropic: MODEL },
      tools: { ...DEFAULT_SETTINGS.tools, readAttachment: false, runJavascript: false },
    },
  });
  return rt;
}

/** The job the gauge would hand over for the conversation as it stands. */
function jobFor(rt: Runtime, conversationId: string, asked = true): CountJob {
  const ctx = contextFor(rt, conversationId);
  const plan = planFor(ctx, shownBranch(rt.store.getState(), conversationId));
  return { conversationId, ctx, plan, key: requestKeyOf(ctx, plan), asked };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

/** `ms` later on the runtime's clock, hands `job` over (as the gauge does on every change) and lets what it starts finish. */
async function later(rt: Runtime, ms: number, job: CountJob): Promise<void> {
  clock += ms;
  countRequest(rt, job);
  await settle();
}

beforeEach(() => {
  globalThis.indexedDB = new IDBFactory();
  clock += 10 * 60_000;
});

describe('exact counts', () => {
  it('counts a request once, shows it under its key, and calibrates the estimate by it', async () => {
    const counted: ChatRequest[] = [];
    const answers: Array<number | Error> = [];
    const rt = await runtimeWith(countingProvider(answers, counted));
    const id = await sendAndSettle(rt, `First: ${LONG}`);
    const job = jobFor(rt, id);
    const estimate = rawEstimate(job.ctx, job.plan);
    expect(estimate).toBeGreaterThan(256);
    answers.push(Math.round(estimate * 1.3));

    countRequest(rt, job);
    expect(rt.store.getState().requestCounts[job.key]).toEqual({ status: 'counting' });
    await settle();
    expect(rt.store.getState().requestCounts[job.key]).toEqual({ status: 'counted', tokens: Math.round(estimate * 1.3) });
    expect(counted).toHaveLength(1);
    // The request counted is the one the plan sends.
    expect(counted[0]!.messages).toEqual(job.plan.messages.map((item) => item.message));
    expect(rt.store.getState().calibration.models[MODEL]?.factor).toBeCloseTo(1.3, 2);
    // The next estimate of the same request moves to the count.
    const exact = Math.round(estimate * 1.3);
    const before = job.plan.metrics.inputTokens;
    const after = jobFor(rt, id).plan.metrics.inputTokens;
    expect(Math.abs(after - exact)).toBeLessThan(Math.abs(before - exact) / 10);

    // Unchanged: asked again, automatically or by the user, nothing goes to the provider.
    await later(rt, COUNT_INTERVAL_MS, jobFor(rt, id, false));
    await later(rt, 0, jobFor(rt, id, true));
    expect(counted).toHaveLength(1);
    expect(jobFor(rt, id).key).toBe(job.key);
  });

  it('a new message makes a new request, counted anew once the pace allows', async () => {
    const counted: ChatRequest[] = [];
    const answers: Array<number | Error> = [900, 1900];
    const rt = await runtimeWith(countingProvider(answers, counted));
    const id = await sendAndSettle(rt, `First: ${LONG}`);
    await later(rt, 0, jobFor(rt, id));
    await sendAndSettle(rt, `Second: ${LONG}`);
    const second = jobFor(rt, id);
    await later(rt, 0, second);
    // Within the interval: waiting, not sent.
    expect(counted).toHaveLength(1);
    expect(rt.store.getState().requestCounts[second.key]).toEqual({ status: 'counting' });
    await later(rt, COUNT_INTERVAL_MS, second);
    expect(counted).toHaveLength(2);
    expect(rt.store.getState().requestCounts[second.key]).toEqual({ status: 'counted', tokens: 1900 });
  });

  it('backs off a 429 quietly, for as long as the provider asks, then counts', async () => {
    const counted: ChatRequest[] = [];
    const limited = new WindowpaneError('rate_limit', 'Rate limited.', { retryAfterSeconds: 40 });
    const answers: Array<number | Error> = [limited, 1234];
    const rt = await runtimeWith(countingProvider(answers, counted));
    const id = await sendAndSettle(rt, `First: ${LONG}`);
    const job = jobFor(rt, id);
    await later(rt, 0, job);
    const waiting = rt.store.getState().requestCounts[job.key];
    expect(waiting).toMatchObject({ status: 'waiting' });
    expect(waiting?.status === 'waiting' && waiting.note).toContain('about 40 s');
    expect(rt.store.getState().notices).toEqual([]);

    await later(rt, 30_000, job);
    expect(counted).toHaveLength(1);
    await later(rt, 10_000, job);
    expect(counted).toHaveLength(2);
    expect(rt.store.getState().requestCounts[job.key]).toEqual({ status: 'counted', tokens: 1234 });
  });

  it('keeps the estimate when the count fails, and asks again only when the user does', async () => {
    const counted: ChatRequest[] = [];
    const answers: Array<number | Error> = [new WindowpaneError('provider', 'The provider answered the token count without a number of tokens.'), 777];
    const rt = await runtimeWith(countingProvider(answers, counted));
    const id = await sendAndSettle(rt, `First: ${LONG}`);
    const before = rt.store.getState().calibration;
    const job = jobFor(rt, id, false);
    await later(rt, 0, job);
    const failed = rt.store.getState().requestCounts[job.key];
    expect(failed).toMatchObject({ status: 'failed' });
    expect(failed?.status === 'failed' && failed.note).toContain('without a number of tokens');
    expect(rt.store.getState().calibration).toBe(before);

    await later(rt, COUNT_INTERVAL_MS, job);
    expect(counted).toHaveLength(1);
    await later(rt, 0, { ...job, asked: true });
    expect(counted).toHaveLength(2);
    expect(rt.store.getState().requestCounts[job.key]).toEqual({ status: 'counted', tokens: 777 });
  });

  it('counts only the newest request of a conversation that waited', async () => {
    const counted: ChatRequest[] = [];
    const answers: Array<number | Error> = [500, 600, 700];
    const rt = await runtimeWith(countingProvider(answers, counted));
    const id = await sendAndSettle(rt, `First: ${LONG}`);
    await later(rt, 0, jobFor(rt, id));
    await sendAndSettle(rt, `Second: ${LONG}`);
    const older = jobFor(rt, id);
    countRequest(rt, older);
    await sendAndSettle(rt, `Third: ${LONG}`);
    const newer = jobFor(rt, id);
    countRequest(rt, newer);
    expect(rt.store.getState().requestCounts[older.key]).toBeUndefined();
    await later(rt, COUNT_INTERVAL_MS, newer);
    expect(counted).toHaveLength(2);
    expect(counted[1]!.messages).toHaveLength(newer.plan.messages.length);
    expect(rt.store.getState().requestCounts[newer.key]).toEqual({ status: 'counted', tokens: 600 });
  });
});

describe('when to count', () => {
  it('counts near the trim mark, the window or the budget, not far from them', async () => {
    const rt = await runtimeWith(countingProvider([], []));
    const id = await sendAndSettle(rt, `First: ${LONG}`);
    const metrics = jobFor(rt, id).plan.metrics;
    const at = (totalTokens: number, extra = {}) => nearALimit({ ...metrics, totalTokens, inputTokens: totalTokens, budgetTokens: Infinity, ...extra });
    expect(at(metrics.triggerTokens * 0.5)).toBe(false);
    expect(at(metrics.triggerTokens * 0.91)).toBe(true);
    expect(at(metrics.triggerTokens * 1.09)).toBe(true);
    expect(at(metrics.contextWindow * 0.95)).toBe(true);
    expect(at(1000, { budgetTokens: 1050 })).toBe(true);
    expect(at(1000, { overBudget: true })).toBe(true);
  });

  it('keys a request by what its body is made of', async () => {
    const rt = await runtimeWith(countingProvider([], []));
    const id = await sendAndSettle(rt, `First: ${LONG}`);
    const key = jobFor(rt, id).key;
    expect(jobFor(rt, id).key).toBe(key);
    const settings = rt.store.getState().settings;
    rt.store.setState({ settings: { ...settings, systemPrompt: 'Be brief.' } });
    expect(jobFor(rt, id).key).not.toBe(key);
    rt.store.setState({ settings: { ...settings, models: { anthropic: 'claude-opus-4-8' } } });
    expect(jobFor(rt, id).key).not.toBe(key);
    rt.store.setState({ settings });
    expect(jobFor(rt, id).key).toBe(key);
  });
});
