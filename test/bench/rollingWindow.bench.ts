// The rolling window's pruning overhead: a conversation of 1,000 plain chat messages
// (text from the corpus, see conversations.ts) planned with the `rolling` strategy keeping
// the last 50, as the app plans it before every request: the whole history, with the count
// cache warm from the previous request, so only the new message is counted. One sample is
// 100 requests in a row, each appending one message and planning again, so each request
// prunes one message more than the one before (1,000 → 1,099 messages, 950 → 1,049
// pruned); the time reported is per request. The baseline is a `slice()` of the same
// 1,000-message array, measured in the same run: a copy of the history, the least any
// code handing it on has to pay. The model's window (200k tokens) is far above what 50
// messages hold, so the message cap is the only limit that binds.
import { createCountCache, estimateMessageTokens, planContext, resolveModelInfo, type CachedCounter, type ModelLimits } from '../../src/core';
import { chatHistory, type BenchItem } from './conversations';
import { fmtMs, fmtRatio, type Row } from './harness';
import { interleavedMedians } from './interleaved';

export const title = "rolling window (last 50) on 1,000 messages, 100 prunes in a row (CPU time; ratio = one request's plan ÷ one slice() of the history)";

const SIZE = 1_000;
const REQUESTS = 100;
const KEEP = 50;
const MODEL_ID = 'claude-haiku-4-5';

function plan(history: readonly BenchItem[], model: ModelLimits, counter: CachedCounter) {
  return planContext({ history, policy: { strategy: 'rolling', options: { rollingMax: KEEP } }, model, counter });
}

/** The history and count cache as the app has them before the first timed request: every message counted once. */
function warmStart(items: readonly BenchItem[], model: ModelLimits): { history: BenchItem[]; counter: CachedCounter } {
  const history = items.slice(0, SIZE);
  const counter = createCountCache(estimateMessageTokens);
  plan(history, model, counter);
  return { history, counter };
}

/** Appends the next message and plans again, `REQUESTS` times. */
function requests(items: readonly BenchItem[], model: ModelLimits, start: { history: BenchItem[]; counter: CachedCounter }) {
  const { history, counter } = start;
  let last: ReturnType<typeof plan> | undefined;
  for (let i = 0; i < REQUESTS; i++) {
    history.push(items[SIZE + i] as BenchItem);
    last = plan(history, model, counter);
  }
  return last;
}

export async function run(): Promise<Row[]> {
  const info = resolveModelInfo(MODEL_ID);
  const model: ModelLimits = { contextWindow: info.contextWindow, maxOutputTokens: info.maxOutputTokens };
  const items = chatHistory(SIZE + REQUESTS);
  const base = items.slice(0, SIZE);

  // Check what is timed before timing it: every request sends at most the last 50
  // messages and prunes the rest, within the window, counting only the new message.
  const check = warmStart(items, model);
  check.counter.resetStats();
  for (let i = 0; i < REQUESTS; i++) {
    check.history.push(items[SIZE + i] as BenchItem);
    const { metrics } = plan(check.history, model, check.counter);
    const total = SIZE + i + 1;
    if (
      metrics.totalMessages !== total ||
      metrics.keptMessages > KEEP ||
      metrics.keptMessages < KEEP - 1 ||
      metrics.evictedMessages !== total - metrics.keptMessages ||
      metrics.overBudget ||
      !metrics.trimmed
    ) {
      throw new Error(
        `request ${i + 1}: ${metrics.totalMessages} messages, kept ${metrics.keptMessages}, evicted ${metrics.evictedMessages}, overBudget ${String(metrics.overBudget)}, trimmed ${String(metrics.trimmed)}`,
      );
    }
  }
  if (check.counter.stats().misses !== REQUESTS)
    throw new Error(`the ${REQUESTS} requests counted ${check.counter.stats().misses} messages, not only the ${REQUESTS} new ones`);

  const t = await interleavedMedians(
    {
      slice: () => base.slice(),
      requests: {
        prepare: () => warmStart(items, model),
        run: (start: { history: BenchItem[]; counter: CachedCounter }) => requests(items, model, start),
      },
    },
    { rounds: 15, warmup: 3 },
  );
  const slice = t.slice ?? NaN;
  const perRequest = (t.requests ?? NaN) / REQUESTS;
  return [
    {
      benchmark: `rolling window, ${SIZE.toLocaleString('en-US')} messages`,
      case: `last ${KEEP} kept, ${REQUESTS} requests each appending one message (${MODEL_ID}, warm count cache)`,
      value: `${fmtMs(perRequest)} a request (${fmtMs(t.requests ?? NaN)} for ${REQUESTS})`,
      baseline: `slice() ${fmtMs(slice)}`,
      ratio: fmtRatio(perRequest / slice),
    },
  ];
}
