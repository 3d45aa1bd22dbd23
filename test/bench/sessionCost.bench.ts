// The 300-turn session of sessionScript.ts planned by each strategy, at both providers'
// prices (one table when they price alike; context editing is Anthropic's alone): what its
// requests cost in input, cache reads and writes and the strategy's own output (summaries, compactions), how many would not fit the window, and how much of the
// conversation's early facts each request still carries. No timing: every number is exact
// and the same on every run.
//
// Model: a 200,000-token window; every request reserves max_tokens = 8,192 for the answer. A
// request overflows when its input plus that reserve exceeds the window; the API rejects
// it, so it is counted, not billed, and caches nothing (the script goes on as if the answer
// had come). Prices: the registry's Claude Sonnet 5.5 and GPT-6.2 Sol (both $2 input, $2.50
// cache write, $0.10 cache read, $10 output per million tokens). The answers' own output
// (700 tokens a turn, 100 per tool call) is the same under every strategy and left out;
// what a strategy writes itself is counted:
// - a summary (client side) is a request of its own: the prompt at the input price (it shares
//   no prefix with the conversation) and the summary's `max_tokens` at the output price, the
//   whole budget assumed used;
// - a provider compaction is billed as the providers document it: the compacting step reads
//   the request as it stands (its cached prefix read back) and writes a 2,000-token summary
//   at the output price; the answer is then written from the summary and the newest message,
//   a new cached prefix. Both providers compact alike here; OpenAI's item is opaque, and is
//   counted as large as Anthropic's readable summary.
// Summaries and compactions are assumed faithful: they keep every fact of what they read.
import {
  chars4,
  findModelInfo,
  planContext,
  PROVIDER_PLACEHOLDER_TOKENS,
  providerClearing,
  resolvePlanSummary,
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
import { newBill, padded, PromptCache, recordRecall, script, summaryText, turnOf, type Bill } from './sessionScript';

export const title =
  '300-turn session with tool results, 200k window: context cost, overflows and recall per strategy (ratio = cost ÷ rolling window cost, same provider)';

const CONTEXT_WINDOW = 200_000;
const OUTPUT_RESERVE = 8_192;
const MODEL: ModelLimits = { contextWindow: CONTEXT_WINDOW, maxOutputTokens: 64_000 };
/** What a provider's compaction writes, in tokens. */
const COMPACTION_SUMMARY_TOKENS = 2_000;
/** Anthropic's context editing at its documented defaults: clear past 100,000 input tokens, keep the newest 3 tool uses. */
const EDITING_TRIGGER = 100_000;
const EDITING_KEEP = 3;

function pricesOf(id: string): ModelPrices {
  const found = findModelInfo(id);
  const prices = found?.match === 'exact' ? found.info.prices : undefined;
  if (!prices) throw new Error(`${id} is not in the model registry with its prices`);
  return prices;
}

const PROVIDERS = [
  { name: 'Anthropic', prices: pricesOf('claude-sonnet-5-5') },
  { name: 'OpenAI', prices: pricesOf('gpt-6.2-sol') },
] as const;

/** `auto` as the app sets it up: its marks, and the $0.50 budget turned into input tokens at the model's prices. */
function appAuto(prices: ModelPrices): StrategyOptions {
  return {
    maxMessages: DEFAULT_WINDOW.maxMessages,
    windowShare: DEFAULT_WINDOW.triggerRatio,
    lowWater: DEFAULT_WINDOW.lowWater,
    budgetTokens: tokensForBudget(DEFAULT_WINDOW.budgetUsd, prices, OUTPUT_RESERVE),
  };
}

type Session = (prices: ModelPrices) => Promise<Bill>;

/** The stored messages a request is planned from: the newest summary where the first message it covers stood, what it covers left out. */
function planned(stored: readonly PlanItem[]): PlanItem[] {
  let summary: PlanItem | undefined;
  for (const item of stored) if (item.kind === 'summary') summary = item;
  if (!summary) return stored.slice();
  const covered = new Set(summary.covers);
  const out: PlanItem[] = [];
  let placed = false;
  for (const item of stored) {
    if (item.kind === 'summary') continue;
    if (covered.has(item.id)) {
      if (!placed) out.push(summary);
      placed = true;
    } else out.push(item);
  }
  return out;
}

function overflows(input: number): boolean {
  return input + OUTPUT_RESERVE > CONTEXT_WINDOW;
}

/**
 * A session planned in the browser by `policy`, summaries written when the plan asks and
 * stored as the app stores them. `providerEdits`: the clearing the plan makes is asked of
 * Anthropic's context editing instead, so the server clears the same results and bills what
 * it kept, its placeholders in their place.
 */
function plannedSession(policyOf: (prices: ModelPrices) => ContextPolicy, providerEdits = false): Session {
  return async (prices) => {
    const bill = newBill();
    const cache = new PromptCache(prices, bill);
    const policy = policyOf(prices);
    const stored: PlanItem[] = [];
    let summaries = 0;
    for (const step of script()) {
      stored.push(step.item);
      if (!step.request) continue;
      const plan = planContext({
        history: planned(stored),
        policy: { ...policy, options: { ...policy.options, outputReserve: OUTPUT_RESERVE } },
        model: MODEL,
        counter: chars4,
      });
      const resolved = await resolvePlanSummary(plan, {
        summarize: async (prompt, { maxTokens }) => {
          cache.sendApart(Math.ceil(prompt.length / 4), maxTokens);
          return summaryText(prompt, maxTokens);
        },
      });
      if (resolved.summary) stored.push({ id: `s${++summaries}`, kind: 'summary', covers: resolved.summary.covers, message: resolved.summary.message });
      const clearing = providerEdits ? providerClearing(resolved.messages) : null;
      const request = clearing ? resolved.messages.map(serverEdited) : resolved.messages.map((item) => item.message);
      if (clearing && clearing.results === 0) throw new Error('a provider clearing without results');
      send(bill, cache, request, turnOf(step));
    }
    return bill;
  };
}

/** The request as the server reads it after clearing what the plan cleared: its placeholder in place of each result. */
function serverEdited(item: PlanItem): WindowMessage {
  if (!item.cleared) return item.message;
  const content = (item.cleared.original.content as { type: string }[]).map((block) =>
    block.type === 'tool_result' ? { ...block, content: padded('[cleared by the provider]', PROVIDER_PLACEHOLDER_TOKENS) } : block,
  );
  return { ...item.cleared.original, content } as WindowMessage;
}

function send(bill: Bill, cache: PromptCache, request: readonly WindowMessage[], turn: number): void {
  const input = request.reduce((sum, message) => sum + chars4(message), 0);
  if (overflows(input)) {
    bill.overflows++;
    return;
  }
  cache.send(request);
  recordRecall(bill, request, turn);
}

/**
 * The full history sent every time, with Anthropic's context editing at its documented
 * defaults: past 100,000 input tokens the server clears every tool result but the newest 3,
 * with no `clear_at_least`, so each request that ages one more result out edits the prefix anew.
 */
const serverDefaultsSession: Session = async (prices) => {
  const bill = newBill();
  const cache = new PromptCache(prices, bill);
  const history: WindowMessage[] = [];
  const edited = new Map<WindowMessage, WindowMessage>();
  for (const step of script()) {
    history.push(step.item.message);
    if (!step.request) continue;
    const whole = history.reduce((sum, message) => sum + chars4(message), 0);
    let request = history;
    if (whole > EDITING_TRIGGER) {
      const results = history.filter(isToolResult);
      const clear = new Set(results.slice(0, Math.max(0, results.length - EDITING_KEEP)));
      request = history.map((message) => {
        if (!clear.has(message)) return message;
        let copy = edited.get(message);
        if (!copy) edited.set(message, (copy = serverEdited({ id: '', message, cleared: { toolCallIds: [], savedTokens: 0, original: message } })));
        return copy;
      });
    }
    send(bill, cache, request, turnOf(step));
  }
  return bill;
};

function isToolResult(message: WindowMessage): boolean {
  return Array.isArray(message.content) && (message.content as { type?: string }[]).some((block) => block.type === 'tool_result');
}

/**
 * The provider compacts past `trigger` input tokens: the request that crosses it is read by
 * the compacting step (billed, its cached prefix read), which writes the summary; the answer
 * is then made from the summary and the newest message. Every later request opens with the
 * one-line opener and the compaction, and sends only what came after.
 */
function compactionSession(trigger: number): Session {
  return async (prices) => {
    const bill = newBill();
    const cache = new PromptCache(prices, bill);
    let head: WindowMessage[] = [];
    let since: WindowMessage[] = [];
    let compactions = 0;
    for (const step of script()) {
      since.push(step.item.message);
      if (!step.request) continue;
      const request = [...head, ...since];
      const input = request.reduce((sum, message) => sum + chars4(message), 0);
      if (input <= trigger || overflows(input)) {
        send(bill, cache, request, turnOf(step));
        continue;
      }
      cache.send(request);
      cache.wrote(COMPACTION_SUMMARY_TOKENS);
      const read = request.map((message) => JSON.stringify(message.content)).join('\n');
      compactions++;
      head = [
        { role: 'user', content: `Continue from the summary of our conversation. (${compactions})` },
        { role: 'assistant', content: summaryText(read, COMPACTION_SUMMARY_TOKENS) },
      ];
      since = since.slice(-1);
      send(bill, cache, [...head, ...since], turnOf(step));
    }
    return bill;
  };
}

const SESSIONS: { label: string; run: Session; anthropicOnly?: boolean }[] = [
  { label: 'off', run: plannedSession(() => ({ strategy: 'off' })) },
  { label: 'rolling (last 50 messages)', run: plannedSession(() => ({ strategy: 'rolling' })) },
  { label: 'count (100: first 1 + last 20 + newest middle)', run: plannedSession(() => ({ strategy: 'count' })) },
  { label: 'truncate (80 % → 70 % of the window)', run: plannedSession(() => ({ strategy: 'truncate' })) },
  { label: 'summarize (its defaults)', run: plannedSession(() => ({ strategy: 'summarize' })) },
  { label: 'two-tier (its defaults)', run: plannedSession(() => ({ strategy: 'two-tier' })) },
  {
    label: 'auto (100-message cap, $0.50 a request; the default where the model cannot compact)',
    run: plannedSession((prices) => ({ strategy: 'auto', options: appAuto(prices) })),
  },
  {
    label: 'auto + summaries',
    run: plannedSession((prices) => ({ strategy: 'auto', options: { ...appAuto(prices), summarize: true } })),
  },
  {
    label: 'auto without its message cap',
    run: plannedSession((prices) => ({ strategy: 'auto', options: { ...appAuto(prices), maxMessages: 0 } })),
  },
  {
    label: 'auto, its clearing made by the provider (context editing)',
    run: plannedSession((prices) => ({ strategy: 'auto', options: appAuto(prices) }), true),
    anthropicOnly: true,
  },
  { label: 'full history + context editing at its defaults (100k, keep 3)', run: serverDefaultsSession, anthropicOnly: true },
  { label: 'provider compaction at 150,000 (Anthropic’s default)', run: compactionSession(150_000) },
  { label: 'provider compaction at 100,000 (the app’s default)', run: compactionSession(100_000) },
  { label: 'provider compaction at 50,000 (the minimum)', run: compactionSession(50_000) },
];

const usd = (value: number) => `$${value.toFixed(2)}`;
const millions = (value: number) => `${(value / 1e6).toFixed(1)}M`;
const percent = (share: number) => `${Math.round(share * 100)} %`;

/** The providers whose prices differ: one table stands for two that price alike. */
function pricings(): { name: string; prices: ModelPrices }[] {
  const out: { name: string; prices: ModelPrices }[] = [];
  for (const provider of PROVIDERS) {
    const same = out.find((o) => JSON.stringify(o.prices) === JSON.stringify(provider.prices));
    if (same) same.name = `${same.name} and ${provider.name}`;
    else out.push({ ...provider });
  }
  return out;
}

export async function run(): Promise<Row[]> {
  const rows: Row[] = [];
  for (const provider of pricings()) {
    const results: { label: string; bill: Bill }[] = [];
    for (const session of SESSIONS) {
      if (session.anthropicOnly && !provider.name.includes('Anthropic')) continue;
      results.push({ label: session.label, bill: await session.run(provider.prices) });
    }
    const rolling = results.find((r) => r.label.startsWith('rolling'))?.bill.cost ?? NaN;
    for (const { label, bill } of results) {
      rows.push({
        benchmark: `session, ${provider.name} prices`,
        case: label,
        value: `${usd(bill.cost)}, ${bill.overflows} overflows, recall ${percent(bill.recallSum / Math.max(1, bill.recallRequests))} (last ${percent(bill.lastRecall)})`,
        baseline:
          `${bill.requests} requests: ${millions(bill.inputTokens)} input, ${millions(bill.cacheReadTokens)} read, ${millions(bill.cacheWriteTokens)} written, ` +
          `${Math.round(bill.extraOutputTokens / 1000).toLocaleString('en-US')}k own output, prefix broke ${bill.cacheBreaks}×`,
        ratio: fmtRatio(bill.cost / rolling),
      });
    }
  }
  return rows;
}
