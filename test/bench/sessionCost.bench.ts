// A scripted 300-turn session planned by each strategy: what its requests cost in input
// tokens and how many would not fit the window. No timing: every number is exact and the
// same on every run.
//
// The script: each turn the user sends 300 tokens and the assistant answers 700 (text of
// exactly 4 characters per token, counted with chars/4, so the planner's count is the
// true count here; estimator error is measured in estimator.bench.ts). No system prompt.
// Model: 200,000-token window; every request reserves max_tokens = 8,192 for the answer.
// A request overflows when its input plus that reserve exceeds the window; the API
// rejects it, so it is counted, not billed, and caches nothing (the script goes on as if
// the answer had come).
//
// Prices (USD per million tokens): input $3, cache write $3.75 (1.25×), cache read $0.30
// (0.1×); output $15 only converts the app's money budget into tokens (output costs the
// same under every strategy and is left out). Prompt caching is modelled on Anthropic's with a breakpoint on the last message
// of every request: the longest run of leading messages that is byte-identical (same
// JSON) to the leading messages of the previous billed request is read from the cache;
// everything after it is written to the cache. Matching is per whole message, because
// breakpoints sit at message ends. A request under Anthropic's 1,024-token minimum is
// not cached at all: billed at the input price, and the next request finds no cache. The
// 5-minute lifetime never matters in a scripted session. This is generous to strategies
// that change the start of the request: a real cache only hits at earlier breakpoints.
import {
  chars4,
  costOfUsage,
  planContext,
  tokensForBudget,
  type ContextPolicy,
  type ModelLimits,
  type ModelPrices,
  type PlanItem,
  type StrategyOptions,
  type WindowMessage,
} from '../../src/core';
import { DEFAULT_WINDOW } from '../../src/store/settings';
import { fmtRatio, type Row } from './harness';

export const title = '300-turn session, 200k window: input cost and overflows per strategy (ratio = cost ÷ rolling window cost)';

const TURNS = 300;
const USER_TOKENS = 300;
const ASSISTANT_TOKENS = 700;
const CONTEXT_WINDOW = 200_000;
const OUTPUT_RESERVE = 8_192;
const CACHE_MIN_TOKENS = 1_024;
const PRICES: ModelPrices = { input: 3, output: 15, cacheWrite: 3.75, cacheRead: 0.3 };
const MODEL: ModelLimits = { contextWindow: CONTEXT_WINDOW, maxOutputTokens: 64_000 };

// The app's default window settings: `auto` with a 100-message cap, trimming at 80 % of
// the window down to 60 %, and a $0.50 per-request budget, which store/turn.ts turns into
// input tokens at the model's prices after reserving the answer at the output price.
const APP_BUDGET_TOKENS = tokensForBudget(DEFAULT_WINDOW.budgetUsd, PRICES, OUTPUT_RESERVE);
const APP_AUTO: StrategyOptions = {
  maxMessages: DEFAULT_WINDOW.maxMessages,
  windowShare: DEFAULT_WINDOW.triggerRatio,
  lowWater: DEFAULT_WINDOW.lowWater,
  budgetTokens: APP_BUDGET_TOKENS,
};

/** The built-in strategies with their own defaults, `auto` as the app sets it up; only the answer reserve is set, the same for all. */
const POLICIES: { label: string; policy: ContextPolicy }[] = [
  { label: 'off', policy: { strategy: 'off' } },
  { label: 'rolling (last 50 messages)', policy: { strategy: 'rolling' } },
  { label: 'count (100: first 1 + last 20 + newest middle)', policy: { strategy: 'count' } },
  { label: 'truncate (80 % → 70 % of the window)', policy: { strategy: 'truncate' } },
  {
    label: `auto, the default (100-message cap; $${DEFAULT_WINDOW.budgetUsd.toFixed(2)}/request = ${APP_BUDGET_TOKENS.toLocaleString('en-US')} tokens)`,
    policy: { strategy: 'auto', options: APP_AUTO },
  },
  { label: 'auto without its message cap (token marks only)', policy: { strategy: 'auto', options: { ...APP_AUTO, maxMessages: 0 } } },
];

/** A message of exactly `tokens` chars/4 tokens whose text says which turn and role it is. */
function scripted(turn: number, role: 'user' | 'assistant', tokens: number): WindowMessage {
  const head = `Turn ${turn}, ${role}: `;
  return { role, content: head.padEnd(tokens * 4, ' lorem ipsum dolor sit amet') };
}

interface SessionResult {
  cost: number;
  overflows: number;
  billedRequests: number;
  inputTokens: number;
  readTokens: number;
  /** Billed requests that found at most their first message in the cache of the previous one: the prefix broke. */
  cacheBreaks: number;
}

function simulate(policy: ContextPolicy): SessionResult {
  const history: PlanItem[] = [];
  const serialized = new WeakMap<WindowMessage, string>();
  const bytesOf = (message: WindowMessage): string => {
    let json = serialized.get(message);
    if (json === undefined) serialized.set(message, (json = JSON.stringify(message)));
    return json;
  };
  let cached: WindowMessage[] = [];
  const result: SessionResult = { cost: 0, overflows: 0, billedRequests: 0, inputTokens: 0, readTokens: 0, cacheBreaks: 0 };
  for (let turn = 1; turn <= TURNS; turn++) {
    history.push({ id: `u${turn}`, message: scripted(turn, 'user', USER_TOKENS) });
    const plan = planContext({ history, policy: { ...policy, options: { ...policy.options, outputReserve: OUTPUT_RESERVE } }, model: MODEL, counter: chars4 });
    const request = plan.messages.map((item) => item.message);
    const input = request.reduce((sum, message) => sum + chars4(message), 0);
    if (input + OUTPUT_RESERVE > CONTEXT_WINDOW) {
      result.overflows++;
    } else {
      let same = 0;
      let read = 0;
      while (same < request.length && same < cached.length && bytesOf(request[same] as WindowMessage) === bytesOf(cached[same] as WindowMessage)) {
        read += chars4(request[same] as WindowMessage);
        same++;
      }
      if (input < CACHE_MIN_TOKENS) {
        result.cost += costOfUsage({ inputTokens: input, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, PRICES);
        cached = [];
      } else {
        result.cost += costOfUsage({ inputTokens: 0, outputTokens: 0, cacheReadTokens: read, cacheWriteTokens: input - read }, PRICES);
        result.readTokens += read;
        if (cached.length > 0 && same < 2) result.cacheBreaks++;
        cached = request;
      }
      result.billedRequests++;
      result.inputTokens += input;
    }
    history.push({ id: `a${turn}`, message: scripted(turn, 'assistant', ASSISTANT_TOKENS) });
  }
  return result;
}

const usd = (value: number) => `$${value.toFixed(2)}`;
const thousands = (value: number) => `${Math.round(value / 1000).toLocaleString('en-US')}k`;

export async function run(): Promise<Row[]> {
  const results = POLICIES.map(({ label, policy }) => ({ label, result: simulate(policy) }));
  const rolling = results.find((r) => r.label.startsWith('rolling'))?.result.cost ?? NaN;
  return results.map(({ label, result }) => ({
    benchmark: 'session input cost',
    case: label,
    value: `${usd(result.cost)}, ${result.overflows} overflows`,
    baseline:
      `${result.billedRequests} billed requests, avg ${thousands(result.inputTokens / Math.max(1, result.billedRequests))} input tokens, ` +
      `${Math.round((100 * result.readTokens) / Math.max(1, result.inputTokens))} % read from cache, prefix broke ${result.cacheBreaks} times`,
    ratio: fmtRatio(result.cost / rolling),
  }));
}
