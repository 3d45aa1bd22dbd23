// The scripted session of the session cost benchmark (sessionCost.bench.ts), its prompt-cache
// billing and its recall measure. Every number is exact and the same on every run.
//
// The script, 300 turns: the user sends 300 tokens and the assistant answers 700. Every
// fourth turn the assistant first calls a tool (100 tokens) and reads a 4,000-token result,
// so that turn makes two requests. The user's messages of the first 30 turns each carry a
// fact ("remember fact #N") that the recall measure looks for. Text is exactly 4 characters
// per token, counted with chars/4, so the planner's count is the true count here.
import { chars4, costOfUsage, type ModelPrices, type PlanItem, type WindowMessage } from '../../src/core';

export const TURNS = 300;
export const USER_TOKENS = 300;
export const ASSISTANT_TOKENS = 700;
export const TOOL_CALL_TOKENS = 100;
export const TOOL_RESULT_TOKENS = 4_000;
export const TOOL_EVERY = 4;
/** The turns whose user message carries a fact; recall is measured once all are said. */
export const FACT_TURNS = 30;
/** Anthropic's smallest cacheable prompt; OpenAI's automatic caching starts at the same size. */
const CACHE_MIN_TOKENS = 1_024;

const FACT = /remember fact #(\d+)/g;

/** `text` padded to exactly `tokens` chars/4 tokens. */
export function padded(text: string, tokens: number): string {
  return text.padEnd(tokens * 4, ' lorem ipsum dolor sit amet');
}

/** One step of the script: a message to append, and whether a request is made once it is in the history. */
export interface ScriptStep {
  item: PlanItem;
  request: boolean;
}

/** The session as the history grows: a request follows every user message and every tool result. */
export function* script(): Generator<ScriptStep> {
  for (let turn = 1; turn <= TURNS; turn++) {
    const fact = turn <= FACT_TURNS ? ` remember fact #${turn}.` : '';
    yield { item: { id: `u${turn}`, message: { role: 'user', content: padded(`Turn ${turn}, user:${fact}`, USER_TOKENS) } }, request: true };
    if (turn % TOOL_EVERY === 0) {
      const call = `call${turn}`;
      yield {
        item: {
          id: `c${turn}`,
          message: {
            role: 'assistant',
            content: [
              { type: 'text', text: padded(`Turn ${turn}, looking it up.`, TOOL_CALL_TOKENS - 20) },
              { type: 'tool_use', id: call, name: 'lookup', input: { q: `turn ${turn}` } },
            ],
          },
        },
        request: false,
      };
      yield {
        item: {
          id: `r${turn}`,
          message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: call, content: padded(`Result ${turn}:`, TOOL_RESULT_TOKENS) }] },
        },
        request: true,
      };
    }
    yield { item: { id: `a${turn}`, message: { role: 'assistant', content: padded(`Turn ${turn}, assistant:`, ASSISTANT_TOKENS) } }, request: false };
  }
}

const factCache = new WeakMap<WindowMessage, number[]>();

/** The facts a message's text carries (the text of every block, tool results included). */
export function factsIn(message: WindowMessage): number[] {
  let found = factCache.get(message);
  if (found) return found;
  const text = JSON.stringify(message.content);
  found = [...text.matchAll(FACT)].map((m) => Number(m[1]));
  factCache.set(message, found);
  return found;
}

/** A model-written summary of `tokens` tokens that keeps every fact it read: a faithful summarizer, not modelled further. */
export function summaryText(read: string, tokens: number): string {
  const facts = [...new Set([...read.matchAll(FACT)].map((m) => m[1]))];
  return padded(`Summary: ${facts.map((n) => `remember fact #${n}.`).join(' ')}`, tokens);
}

/** The running bill of one session. */
export interface Bill {
  /** Input, cache and summary/compaction output, in USD: what differs between strategies. */
  cost: number;
  overflows: number;
  requests: number;
  inputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Output written by the strategy's own calls (summaries, compactions); the answers' output is the same for all. */
  extraOutputTokens: number;
  /** Requests whose cached prefix broke (at most their first message read back). */
  cacheBreaks: number;
  /** Summed share of the facts reaching each request made after all were said. */
  recallSum: number;
  recallRequests: number;
  /** Share of the facts in the last request. */
  lastRecall: number;
}

export function newBill(): Bill {
  return {
    cost: 0,
    overflows: 0,
    requests: 0,
    inputTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    extraOutputTokens: 0,
    cacheBreaks: 0,
    recallSum: 0,
    recallRequests: 0,
    lastRecall: 0,
  };
}

/**
 * Prompt caching, modelled on Anthropic's with a breakpoint on the last message of every
 * request: the longest run of leading messages byte-identical (same JSON) to the previous
 * billed request's is read from the cache, the rest written to it. Matching is per whole
 * message, as breakpoints sit at message ends (OpenAI's automatic caching matches in
 * 128-token steps, so it reads a little more; the difference is under one message per
 * request). A request under 1,024 tokens is not cached: billed at the input price, and the
 * next finds no cache. The 5-minute lifetime never matters in a scripted session. Generous to
 * strategies that change the start of the request: a real cache only hits at earlier breakpoints.
 */
export class PromptCache {
  private cached: WindowMessage[] = [];
  private readonly bytes = new WeakMap<WindowMessage, string>();
  constructor(
    private readonly prices: ModelPrices,
    private readonly bill: Bill,
  ) {}

  private json(message: WindowMessage): string {
    let json = this.bytes.get(message);
    if (json === undefined) this.bytes.set(message, (json = JSON.stringify(message)));
    return json;
  }

  /** Bills `request`; returns its input tokens. */
  send(request: readonly WindowMessage[]): number {
    const input = request.reduce((sum, message) => sum + chars4(message), 0);
    let same = 0;
    let read = 0;
    while (same < request.length && same < this.cached.length && this.json(request[same] as WindowMessage) === this.json(this.cached[same] as WindowMessage)) {
      read += chars4(request[same] as WindowMessage);
      same++;
    }
    const bill = this.bill;
    if (input < CACHE_MIN_TOKENS) {
      bill.cost += costOfUsage({ inputTokens: input, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, this.prices);
      this.cached = [];
    } else {
      bill.cost += costOfUsage({ inputTokens: 0, outputTokens: 0, cacheReadTokens: read, cacheWriteTokens: input - read }, this.prices);
      bill.cacheReadTokens += read;
      bill.cacheWriteTokens += input - read;
      if (this.cached.length > 0 && same < 2) bill.cacheBreaks++;
      this.cached = request.slice();
    }
    bill.requests++;
    bill.inputTokens += input;
    return input;
  }

  /** A call outside the conversation's prefix (a summary request): billed at the input price, the cache left as it is. */
  sendApart(inputTokens: number, outputTokens: number): void {
    this.bill.cost += costOfUsage({ inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 }, this.prices);
    this.bill.inputTokens += inputTokens;
    this.bill.extraOutputTokens += outputTokens;
  }

  /** Output the strategy's own step wrote inside a request (a compaction's summary). */
  wrote(outputTokens: number): void {
    this.bill.cost += costOfUsage({ inputTokens: 0, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 }, this.prices);
    this.bill.extraOutputTokens += outputTokens;
  }
}

/** Records which share of the facts reach `request` (directly or through a summary's text), once all were said. */
export function recordRecall(bill: Bill, request: readonly WindowMessage[], turn: number): void {
  if (turn <= FACT_TURNS) return;
  const seen = new Set<number>();
  for (const message of request) for (const fact of factsIn(message)) seen.add(fact);
  const share = seen.size / FACT_TURNS;
  bill.recallSum += share;
  bill.recallRequests++;
  bill.lastRecall = share;
}

/** The turn a script step belongs to. */
export function turnOf(step: ScriptStep): number {
  return Number(step.item.id.slice(1));
}
