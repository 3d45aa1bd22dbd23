// planContext against LangChain.js `trimMessages` (@langchain/core) on the same plain chat
// (user/assistant text from the corpus, see conversations.ts), the same budget (half the
// conversation's tokens, so both must drop about half; the planner runs the app's default
// strategy with only that budget binding) and the same per-message counter: plain
// ceil(characters / 4) and the default estimator, uncached on both sides, then the app's
// memoized estimator, one instance shared by both sides.
//
// trimMessages' `tokenCounter` is a function of a message LIST. With strategy "last" it
// reverses the history and calls it on ever shorter prefixes (all n messages, then n − 1,
// …) until one fits: dropping k of n messages counts (k + 1)·n − k(k + 1)/2 messages, at
// most about n²/2. It also copies every message first and slices the list for each call.
// The planner counts each message once. So when a count is expensive the ratio tends to
// the ratio of counts, about k − k²/2n (never more than about n/2: 800 at 1,600
// messages); when a count is nearly free, as chars/4 is, the planner's own per-message
// work decides it. "alone" is one counter call per message and nothing else: the floor
// of any planner. Both results are checked against the budget.
//
// Cold, the planner can therefore not be more than about 800× faster at 1,600 messages.
// In the app it is not cold: its counts are cached per message, so each turn counts only
// what is new. One more row times that (the default estimator's case, the cache warmed by
// an earlier plan) against trimMessages with the plain estimator, as LangChain's docs pass
// a counter. The memoized rows give both sides the same cache.
import { AIMessage, HumanMessage, trimMessages, type BaseMessage } from '@langchain/core/messages';
import {
  MESSAGE_OVERHEAD_TOKENS,
  createCountCache,
  estimateMessageTokens,
  estimateTextTokens,
  planContext,
  type ContextPlan,
  type ContextPolicy,
  type ModelLimits,
  type WindowMessage,
} from '../../src/core';
import { chatHistory, type BenchItem } from './conversations';
import { fmtMs, fmtRatio, type Row } from './harness';
import { interleavedMedians, type InterleaveOptions } from './interleaved';

export const title = 'planContext vs LangChain trimMessages (same messages, counter and budget; ratio = trimMessages time ÷ planContext time)';

type Counter = (message: { content: unknown }) => number;

/** ceil(characters / 4) of the content. */
const charsOver4: Counter = (message) => {
  const { content } = message;
  return Math.ceil((typeof content === 'string' ? content.length : JSON.stringify(content).length) / 4);
};

/**
 * The app's default estimator, `estimateMessageTokens`, read from the content alone, which
 * for a plain text message is all it reads (LangChain's AIMessage carries an empty
 * `tool_calls` array that would send it down the slower general path).
 */
const defaultEstimator: Counter = ({ content }) =>
  typeof content === 'string' ? MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(content) : estimateMessageTokens({ role: 'user', content });

/**
 * The counter the app hands the planner: the default estimator memoized per message
 * object (`createCountCache`). One instance per case, shared by both sides and warm.
 * trimMessages copies every message on each call, so its first count of each copy
 * misses and the rest of its k·n counts are lookups.
 */
function memoizedEstimator(): Counter {
  const cache = createCountCache(defaultEstimator as (message: WindowMessage) => number);
  return (message) => cache(message as WindowMessage);
}

interface Case {
  size: number;
  /** Timing rounds; a round runs each side once (a fast side in a batch of calls). */
  timing: InterleaveOptions;
}

const COUNTERS: { name: string; counter: () => Counter; cases: Case[]; warmRow?: boolean }[] = [
  {
    name: 'chars/4',
    counter: () => charsOver4,
    cases: [
      { size: 100, timing: { rounds: 15 } },
      { size: 1_600, timing: { rounds: 9 } },
      { size: 10_000, timing: { rounds: 5, warmup: 1 } },
    ],
  },
  {
    // At 10,000 messages one trimMessages call would count ~37 million messages with the
    // estimator, over ten minutes: not run. At 1,600 one call takes about half a minute,
    // so it is timed once, against the planner's mean over a batch of calls.
    name: 'default estimator',
    counter: () => defaultEstimator,
    // Also the planner as the app runs it each turn: the default estimator behind its count
    // cache, warm from the previous plan, against trimMessages as LangChain documents it.
    warmRow: true,
    cases: [
      { size: 100, timing: { rounds: 7, warmup: 3 } },
      { size: 1_600, timing: { rounds: 1, warmup: { planContext: 2, trimMessages: 0, countingAlone: 2 }, minBatchMs: 250 } },
    ],
  },
  {
    name: "memoized estimator (the app's counter)",
    counter: memoizedEstimator,
    cases: [
      { size: 100, timing: { rounds: 9 } },
      { size: 1_600, timing: { rounds: 5 } },
      { size: 10_000, timing: { rounds: 3, warmup: 1 } },
    ],
  },
];

function sumOver(counter: Counter, messages: readonly { content: unknown }[]): number {
  let sum = 0;
  for (const message of messages) sum += counter(message);
  return sum;
}

function toLangChain(items: readonly BenchItem[]): BaseMessage[] {
  return items.map(({ message }) => (message.role === 'user' ? new HumanMessage(message.content as string) : new AIMessage(message.content as string)));
}

/**
 * The app's default strategy with only the budget binding: the user's per-request budget
 * set to `budget`, no output reserve, no message cap, and a window far above the budget.
 */
function planWithin(items: readonly BenchItem[], budget: number, counter: Counter): ContextPlan {
  const policy: ContextPolicy = { strategy: 'auto', options: { budgetTokens: budget, outputReserve: 0, maxMessages: 0 } };
  const model: ModelLimits = { contextWindow: budget * 10, maxOutputTokens: 8192 };
  return planContext({ history: items, policy, model, counter });
}

const n = (value: number) => value.toLocaleString('en-US');

export async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const { name, counter: makeCounter, cases, warmRow } of COUNTERS) {
    for (const { size, timing } of cases) {
      const counter = makeCounter();
      const items = chatHistory(size);
      const messages = items.map((item) => item.message);
      const lcMessages = toLangChain(items);
      const budget = Math.floor(sumOver(counter, messages) / 2);
      // The timed trimMessages calls also count how often they count (two additions a call,
      // next to summing hundreds of messages) and keep their result for the checks below.
      let calls = 0;
      let counted = 0;
      let trimmed: BaseMessage[] = [];
      const tokenCounter = (list: BaseMessage[]) => {
        calls++;
        counted += list.length;
        return sumOver(counter, list);
      };
      const trim = async () => {
        calls = 0;
        counted = 0;
        trimmed = await trimMessages(lcMessages, { maxTokens: budget, strategy: 'last', tokenCounter });
      };

      const cached = memoizedEstimator();
      const t = await interleavedMedians(
        {
          planContext: () => planWithin(items, budget, counter),
          trimMessages: trim,
          countingAlone: () => sumOver(counter, messages),
          ...(warmRow ? { planContextWarm: () => planWithin(items, budget, cached) } : {}),
        },
        timing,
      );
      const plan = planWithin(items, budget, counter);
      const planTokens = sumOver(
        counter,
        plan.messages.map((item) => item.message),
      );
      const trimmedTokens = sumOver(counter, trimmed);
      if (trimmed.length === 0 || trimmedTokens > budget || planTokens > budget || plan.metrics.overBudget) {
        throw new Error(`a result is empty or exceeds the ${budget}-token budget: trimMessages ${trimmedTokens}, planContext ${planTokens}`);
      }
      const planMs = t.planContext ?? NaN;
      const trimMs = t.trimMessages ?? NaN;
      rows.push({
        benchmark: `vs trimMessages, ${name}`,
        case: `${n(size)} messages, budget ${n(budget)} tokens`,
        value: `planContext ${fmtMs(planMs)} (keeps ${n(plan.messages.length)}; ${n(size)} counts, alone ${fmtMs(t.countingAlone ?? NaN)})`,
        baseline: `trimMessages ${fmtMs(trimMs)} (keeps ${n(trimmed.length)}; ${n(counted)} counts in ${n(calls)} calls)`,
        ratio: fmtRatio(trimMs / planMs),
      });
      if (warmRow) {
        const warmMs = t.planContextWarm ?? NaN;
        const warmPlan = planWithin(items, budget, cached);
        if (warmPlan.messages.length !== plan.messages.length) throw new Error('the warm plan differs from the cold one');
        rows.push({
          benchmark: `vs trimMessages, ${name}`,
          case: `${n(size)} messages, planContext warm (counts cached by the previous plan, as each turn in the app)`,
          value: `planContext ${fmtMs(warmMs)} (keeps ${n(warmPlan.messages.length)}; 0 new counts)`,
          baseline: `trimMessages ${fmtMs(trimMs)} (as above)`,
          ratio: fmtRatio(trimMs / warmMs),
        });
      }
    }
  }
  return rows;
}
