/**
 * Types of the context planner: what goes in (history, policy, model limits, a token
 * counter), what strategies see and return, and the plan that comes out.
 */
import type { WindowMessage } from '../messages';
import type { SummaryPromptKind } from '../summaryPrompt';

/**
 * Tokens of one wire message as the target model will count it (content plus per-message
 * overhead), a whole number ≥ 0. Callers pass a counter memoized by message identity, so
 * planning the same history again costs one lookup per message.
 */
export type TokenCounter = (message: WindowMessage) => number;

/** The model's limits in tokens, already resolved (explicit setting > registry > default). */
export interface ModelLimits {
  /** Context window: input plus output tokens the model accepts in one request. */
  contextWindow: number;
  /** Largest `max_tokens` the model allows for one answer. */
  maxOutputTokens: number;
  /** The provider's own cap on input tokens, where it is below the window minus the answer. */
  maxInputTokens?: number;
}

/**
 * One wire message of the history, tagged with the stored message it came from. A stored
 * message may become several items with the same `id` (OpenAI splits tool results into
 * `role:"tool"` messages); items sharing an id are kept or evicted together.
 */
export interface PlanItem<M extends WindowMessage = WindowMessage> {
  id: string;
  message: M;
  /** Never evicted by any strategy (a pinned message that cannot be sent at all is still dropped as invalid). */
  pinned?: boolean;
  /** `summary`: a stored "[Conversation Summary]" standing in for the messages in `covers`. */
  kind?: 'message' | 'summary';
  /** For a summary: ids of the stored messages it stands for. */
  covers?: readonly string[];
  /**
   * Set by the planner on a sent tool-result item whose results were cleared to save
   * context: its `message` is a copy whose tool-result content is a placeholder naming the
   * call (the stored message is untouched). Never set on history items.
   */
  cleared?: ClearedToolResult;
}

/** What clearing did to one tool-result item of a plan. */
export interface ClearedToolResult {
  /** Ids of the tool calls whose results were replaced by a placeholder (the transcript marks these "cleared from context"). */
  toolCallIds: readonly string[];
  /** Tokens the item no longer costs: its own count minus its placeholder's. */
  savedTokens: number;
  /** The item's message as the history holds it, results whole: what a provider that clears on its own side is sent. */
  original: WindowMessage;
}

/**
 * Knobs a strategy may read. Each strategy documents the ones it uses and applies its
 * own defaults to any left out; unknown knobs are ignored, so one settings object can
 * serve every strategy. Counts are messages, token amounts are tokens, ratios are 0–1.
 */
export interface StrategyOptions {
  /** count, summarize, auto: message cap (`max_messages` in the count-based API; 0 disables). */
  maxMessages?: number;
  /** count: messages kept from the start (`preserve_first_n`). */
  preserveFirst?: number;
  /** count: messages kept from the end (`preserve_last_n`). */
  preserveLast?: number;
  /** rolling: keep the last N messages (`MaxMessagesPerRequest`, must be > 0). */
  rollingMax?: number;
  /** rolling: at most this many of the newest messages are considered at all (`MaxHistoryLen`). */
  maxHistory?: number;
  /** truncate, summarize: trim when tokens exceed this share of the window (default 0.8). */
  triggerRatio?: number;
  /** truncate, summarize: trim down to this share of the window (default 0.7). */
  targetRatio?: number;
  /** auto: the user's per-request token budget (0 = only the window share). */
  budgetTokens?: number;
  /** auto: share of the context window a request may use. */
  windowShare?: number;
  /** auto: after a trim, tokens and messages fall to this share of their caps; two-tier: tool results are cleared down to this share of its threshold. */
  lowWater?: number;
  /** all: output tokens reserved for the answer (default: the model's max output, at most 8,192). */
  outputReserve?: number;
  /** count, auto: replace evicted messages with a summary (`summarize_on_trim`). */
  summarize?: boolean;
  /** count, truncate, auto: put the truncation marker where messages were evicted. */
  marker?: boolean;
  /** summarizing strategies: `max_tokens` of a summary request. */
  summaryMaxTokens?: number;
  /** summarizing strategies: evicted messages needed before a new summary (rate limit). */
  minEvictedForSummary?: number;
  /** two-tier: messages kept at the end (default 8). */
  keepLast?: number;
  /** two-tier: above this many tokens, a heuristic summary (default 80,000). */
  heuristicThreshold?: number;
  /** two-tier: above this many tokens, an AI summary (default 120,000). */
  aiThreshold?: number;
  /**
   * auto, truncate, summarize, two-tier: before evicting turns for tokens, replace the
   * content of old tool results in the request with a short placeholder (default: on for
   * auto; off for the others, whose rules evict messages and nothing else).
   */
  clearToolResults?: boolean;
  /** auto, truncate, summarize, two-tier: the newest this many tool results are never cleared (default 3). */
  keepToolResults?: number;
  /** every strategy: pinned messages are never evicted (default: on for `auto` and custom strategies, off for the others, whose rules know no pins). */
  keepPinned?: boolean;
  /** two-tier: keep the first user message (the goal) besides the last messages (default off: the last messages only). */
  keepGoal?: boolean;
  /** two-tier: compare its thresholds with the model's token estimate (default off: characters ÷ 4, rounded up, per message). */
  scriptAwareCount?: boolean;
  /**
   * summarize: after a trim, keep the newest tool exchange (call and result) of each of the
   * last this many distinct files read or modified, so their latest contents need not be
   * read again (default 10; 0 turns it off). A file is named by `read_attachment`'s `name`
   * or by a file argument of any tool (`path`, `file_path`, `paths`...).
   */
  preserveRecentFiles?: number;
  [knob: string]: unknown;
}

/** Which strategy plans the context, and its knobs. */
export interface ContextPolicy {
  /** A registered strategy name: `auto`, `count`, `rolling`, `truncate`, `summarize`, `two-tier`, `off`, or a custom one. */
  strategy: string;
  options?: StrategyOptions;
}

/**
 * Why a message is not sent:
 * - `message-cap`: over the strategy's message cap;
 * - `token-budget`: over the strategy's token trigger or budget;
 * - `history-cap`: older than the rolling strategy's incoming-history cap;
 * - `tool-exchange`: its tool call or result partner was evicted, and an exchange is never split;
 * - `user-first`: evicted so the request starts with a user message;
 * - `invalid`: cannot be sent (unanswered tool call, orphan result, empty content, unknown role);
 * - `leading`: comes before the first user message, where the APIs accept none.
 */
export type EvictionReason = 'message-cap' | 'token-budget' | 'history-cap' | 'tool-exchange' | 'user-first' | 'invalid' | 'leading';

/** Bits of {@link HistoryView.unitFlags}. */
export const UnitFlag = {
  /** Valid and placeable: may be sent. */
  Sendable: 1,
  /** Opens a user turn (a user message that is not a tool-result carrier). */
  UserStart: 2,
  /** A place where whole-turn eviction may cut: a user turn start or a stored summary. */
  TurnStart: 4,
  Pinned: 8,
  /** A stored summary (`kind: 'summary'`). */
  Summary: 16,
  /** System or developer instructions. */
  System: 32,
  /** Leading system instructions: always kept, never counted against message caps. */
  Prefix: 64,
  /** Cannot be sent: a broken tool exchange, empty content, an unknown role or a misplaced tool block. */
  Invalid: 128,
} as const;

/**
 * The analysed history a strategy plans over. Units are the smallest pieces that can be
 * kept or evicted (a tool exchange with its results, wire messages of one stored message),
 * stored as parallel arrays so a plan of 10,000 messages allocates almost nothing.
 */
export interface HistoryView {
  readonly items: readonly PlanItem[];
  /** Tokens of each item (one counter call per item per plan). */
  readonly itemTokens: Float64Array;
  readonly unitCount: number;
  /** First item of each unit. */
  readonly unitStart: Int32Array;
  /** One past the last item of each unit. */
  readonly unitEnd: Int32Array;
  readonly unitTokens: Float64Array;
  /** Wire messages in each unit. */
  readonly unitMessages: Int32Array;
  /** {@link UnitFlag} bits of each unit. */
  readonly unitFlags: Uint8Array;
  /** Index of the unit holding the first user message (the goal), or -1. */
  readonly firstUserUnit: number;
  /** Units before this index are the leading system prefix and the first user message. */
  readonly headEnd: number;
  /** Tokens of the separate system prompt (Anthropic's `system`), 0 if none. */
  readonly systemTokens: number;
  /** Tokens of the message being composed, planned as if sent. */
  readonly draftTokens: number;
  /** Output tokens reserved for the answer. */
  readonly outputReserve: number;
  /**
   * The most input tokens a request may hold: the window minus the answer's reserve (the
   * providers count the answer against the window), or the provider's lower input cap.
   * Every token ratio of every strategy is a share of this.
   */
  readonly maxInputTokens: number;
  /**
   * What the window fit plans a request down to: the max input tokens less
   * {@link ESTIMATE_MARGIN} of them, because the plan counts estimates and the provider
   * counts tokens. A strategy whose own clearing aims at the window aims here too, so
   * clearing still comes before the fit evicts.
   */
  readonly fitInputTokens: number;
  readonly model: ModelLimits;
  /** Tokens of every sendable unit plus system prompt and draft: the request if nothing were evicted. */
  readonly fullInputTokens: number;
  /** Wire messages of every sendable non-prefix unit: what message caps count. */
  readonly fullMessages: number;
  /** The caller's counter, for sizing synthetic messages. */
  readonly count: TokenCounter;
  /** Tokens reserved for a truncation marker: one sized as if it stood for 999,999 messages, so its size never moves a trim (counted once per plan). */
  readonly markerTokens: () => number;
}

/** What a strategy wants in place of the messages it evicted. */
export type SlotRequest =
  | { kind: 'marker' }
  | {
      kind: 'summary';
      source: 'llm';
      prompt: SummaryPromptKind;
      /** `max_tokens` of the summary request; the plan reserves this much for it. */
      maxTokens: number;
      /** Newly evicted stored messages needed before a new summary is asked for. */
      minEvicted: number;
      /**
       * What stands in until the summary exists, or if it cannot be made: `previous` (the
       * previous summary, else the truncation marker; the default) or `heuristic` (a
       * heuristic summary of the same messages, which needs no model call).
       */
      fallback?: 'previous' | 'heuristic';
      /** The first user message, for the summary prompt to keep the summary on task. */
      goal?: string;
      /** Files whose latest tool results are sent after the summary, for the prompt to leave out. */
      preservedFiles?: readonly string[];
    }
  | { kind: 'summary'; source: 'heuristic' };

/**
 * Tool results a strategy sends as placeholders instead of evicting their turns (see
 * toolClearing.ts). Parallel arrays, in history order.
 */
export interface ToolResultClearing {
  /** History indexes of the cleared tool-result items, ascending. */
  readonly items: readonly number[];
  /** What is sent for each: a copy of the item whose tool-result content is a placeholder, with `cleared` set. */
  readonly placeholders: readonly PlanItem[];
}

/** A strategy's decision for one plan. */
export interface Selection {
  /** Per unit: why it is evicted, or null to keep it. Pinned, prefix and unsendable units are settled by the planner. */
  readonly evict: ReadonlyArray<EvictionReason | null>;
  /** What stands in for the evicted units (null: nothing, they just go). */
  readonly slot: SlotRequest | null;
  /** Why the strategy trimmed, for the user (null: it did not trim). */
  readonly trigger: string | null;
  /** The strategy's caps: input tokens (system + messages + draft) and history messages kept. */
  readonly caps: { readonly maxInputTokens?: number; readonly maxMessages?: number };
  /**
   * Where the strategy trims, as the size of the whole request (input plus the answer's
   * reserve): above `trigger` tokens it trims, down to `target`. Absent for a strategy that
   * trims by message count only; the plan then reports the context window for both.
   */
  readonly marks?: { readonly trigger: number; readonly target: number };
  /** Old tool results sent as placeholders; items in evicted units are ignored. Absent: none. */
  readonly cleared?: ToolResultClearing;
  /**
   * The unit the slot goes before, when the strategy keeps units inside the range it
   * evicted and wants the slot ahead of them (summarize's preserved file results). Only
   * ever moves the slot earlier than the first evicted unit. Absent: at the first evicted unit.
   */
  readonly slotBefore?: number;
}

/**
 * A named way to choose what to send. `resolveOptions` applies the strategy's defaults
 * and throws a ConfigError naming the first invalid knob; `select` must be pure,
 * deterministic and linear in the number of units.
 */
export interface ContextStrategy<O = unknown> {
  /** One line for the strategy picker (the name when absent). */
  readonly label?: string;
  /**
   * By default the planner fits what a strategy keeps into the model's max input tokens: the
   * oldest kept turns after the head go too until the request fits. false: the strategy
   * answers for that itself (`auto`, whose marks lie under the max input tokens) or sends
   * everything by design (`off`); a request that still does not fit is flagged.
   */
  readonly fitsWindow?: boolean;
  /** One paragraph on what the strategy does (see docs/strategies.md). */
  readonly description?: string;
  /** The defaults for every knob this strategy reads. */
  readonly defaults: Readonly<StrategyOptions>;
  resolveOptions(options: StrategyOptions): O;
  select(view: HistoryView, options: O): Selection;
}

/** A summary the plan needs, reuses, or built without a model call. */
export interface SummaryRequest {
  /**
   * - `needed`: ask the model (see `summarizePlan`); until then the slot holds the fallback;
   * - `reused`: the previous summary stands in as it is (too few new evictions, or no prose in them);
   * - `heuristic`: built by the planner without a model call.
   */
  status: 'needed' | 'reused' | 'heuristic';
  /** The prompt of a model-written summary (null for a heuristic one). */
  prompt: SummaryPromptKind | null;
  /** `max_tokens` of the summary request (0 for a heuristic one). */
  maxTokens: number;
  /** Ids of the newly evicted stored messages the new summary condenses, in order. */
  ids: string[];
  /** Their wire messages (the history's own objects). */
  messages: WindowMessage[];
  /** The summary being extended (incremental summaries), or null. */
  previous: { id: string; text: string } | null;
  /** Ids of every stored message the resulting summary stands for: the previous one's plus `ids`. */
  covers: string[];
  /** The conversation's goal (its first user message), when the strategy asks the prompt to keep it in view. */
  goal?: string;
  /** Files whose latest tool results the request keeps after the summary, so the summary need not repeat them. */
  preservedFiles?: string[];
}

/** The marker or summary that stands where messages were evicted. */
export interface PlanSlot {
  kind: 'marker' | 'summary';
  /** Its index in `plan.messages`. */
  index: number;
  role: 'user' | 'assistant';
  /** Stored messages it stands for. */
  standsFor: number;
  summary: SummaryRequest | null;
}

/** Numbers behind a plan, for the gauge, the trim notice and the 80 % warning. */
export interface PlanMetrics {
  /** Wire messages in the history given to the planner. */
  totalMessages: number;
  /** History wire messages sent. */
  keptMessages: number;
  /** History wire messages not sent (for any reason). */
  evictedMessages: number;
  /** Messages in the request: kept ones plus the marker or summary. */
  sentMessages: number;
  /** Kept conversation messages as the strategy's message cap counts them (no leading system prompt, no marker or summary). */
  countedMessages: number;
  /** Input tokens of the request had nothing been evicted or cleared. */
  fullInputTokens: number;
  systemTokens: number;
  /** Kept history messages plus the slot. */
  messageTokens: number;
  /** The marker or summary (for a summary still to be written: its `maxTokens`). */
  slotTokens: number;
  draftTokens: number;
  /** system + messages + slot + draft. */
  inputTokens: number;
  outputReserveTokens: number;
  /** The most input tokens the request may hold (see {@link HistoryView.maxInputTokens}). */
  maxInputTokens: number;
  /** inputTokens + outputReserveTokens: what the request may occupy of the window. */
  totalTokens: number;
  contextWindow: number;
  /** The input-token cap this plan was made against (the strategy's, else the window minus the reserve). */
  budgetTokens: number;
  /** The strategy's message cap, or null. */
  maxMessages: number | null;
  /** Request size (input plus reserve) above which the strategy trims by tokens; the window when it never does. */
  triggerTokens: number;
  /** Request size the strategy trims down to; the window when it never trims by tokens. */
  targetTokens: number;
  /** totalTokens / contextWindow. */
  windowShare: number;
  /** inputTokens / budgetTokens. */
  budgetShare: number;
  /** Over 80 % of the token budget or of the message cap. */
  approachingLimit: boolean;
  /** Over 80 % of the message cap: the "Conversation approaching limit (count/max messages)" warning. */
  approachingMessageCap: boolean;
  /** The request exceeds a cap or the window: what was kept cannot be trimmed further (never silent). */
  overBudget: boolean;
  /** One sentence per exceeded limit. */
  overBudgetReasons: string[];
  /** The strategy evicted something in this plan. */
  trimmed: boolean;
  /** Why it trimmed, or null. */
  trigger: string | null;
  /** Evicted stored messages per reason. */
  evictedByReason: Partial<Record<EvictionReason, number>>;
  /**
   * Tool results sent as a placeholder instead of their content (counted per tool call,
   * so an Anthropic message answering three parallel calls counts 3). Clearing comes
   * before evicting turns; the items are marked with {@link PlanItem.cleared}.
   */
  clearedToolResults: number;
  /** Tokens clearing saved in this request: the cleared items' counts minus their placeholders' (`inputTokens` already counts the placeholders). */
  clearedTokens: number;
}

/** What to send, what not and why. The same input always gives a byte-identical plan. */
export interface ContextPlan<M extends WindowMessage = WindowMessage> {
  strategy: string;
  /**
   * The request's messages in order: history items (the caller's own objects; a summary
   * opening the request gets a copy with role `user`) and at most one slot item with id
   * {@link SLOT_ITEM_ID}.
   */
  messages: PlanItem<M>[];
  /** Stored messages not sent, in history order, each with its reason. */
  evicted: { id: string; reason: EvictionReason }[];
  slot: PlanSlot | null;
  metrics: PlanMetrics;
}

/** The id of the marker or summary item the planner inserts (never a stored id). */
export const SLOT_ITEM_ID = 'windowpane:slot';

/** Arguments of `planContext`. */
export interface PlanContextInput<M extends WindowMessage = WindowMessage> {
  /** Wire messages in send order (a stored summary already in place of what it covers). Never modified. */
  history: readonly PlanItem<M>[];
  policy: ContextPolicy;
  model: ModelLimits;
  /** Tokens of one wire message; pass a memoized one. */
  counter: TokenCounter;
  /** A system prompt sent outside the messages (Anthropic `system`); OpenAI's comes as a leading history item. */
  system?: string;
  /** Tokens of the message being composed, planned as if it were sent (for the gauge). */
  draftTokens?: number;
}
