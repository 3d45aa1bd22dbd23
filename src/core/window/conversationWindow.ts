/**
 * `ConversationWindow`: a drop-in message-count window for callers of the original Python-style API.
 *
 * Give `trim` the whole history and send what it keeps, or let `trimWithSummary` replace
 * what it evicts with one summary. It is a count-based sliding window over
 * provider-agnostic `{ role, content }` messages (plus OpenAI's tool fields), configured
 * with snake_case options (`max_messages`, `summarize_on_trim`, `preserve_first_n`,
 * `preserve_last_n`). One rule beats the plain count arithmetic: a tool exchange is never
 * split, so where the cut would separate a tool call from its results the whole exchange
 * is evicted instead. A result the arithmetic alone would already send as valid is
 * returned exactly, and no result ever keeps more messages than the arithmetic does.
 */
import { ConfigError } from '../errors';
import { contentChars, groupUnits, type WindowMessage } from '../messages';
import { hasSummarizableText, MIN_EVICTED_FOR_SUMMARY, summaryMessage, type SyntheticMessage } from '../summary';
import { buildSummaryPrompt } from '../summaryPrompt';
import { countKeptRanges } from './countCut';
import { tokensForChars } from '../tokens/chars4';

/** The message-count window's options, named as in the original API. All counts are messages. */
export interface ConversationHistoryConfig {
  /** Cap on messages; 0 disables trimming. Default 100. */
  max_messages?: number;
  /** Replace evicted messages with one summary (see `trimWithSummary`). Default false. */
  summarize_on_trim?: boolean;
  /** Messages always kept from the start (system prompt / initial context). Default 1. */
  preserve_first_n?: number;
  /** Messages always kept from the end (recent context). Default 20. */
  preserve_last_n?: number;
}

/** What one trim kept and evicted, and the kept messages' estimated tokens. */
export interface ConversationMetrics {
  /** Messages given to `trim`. */
  totalMessages: number;
  /** Messages in `trimmed`. */
  preservedMessages: number;
  /** Messages in `evicted`. */
  evictedMessages: number;
  /** `estimateTokens(trimmed)`. */
  estimatedTokens: number;
}

/** What `trim` returns: kept and evicted messages (the caller's own objects, in order) and metrics. */
export interface TrimResult<M extends WindowMessage = WindowMessage> {
  trimmed: M[];
  evicted: M[];
  metrics: ConversationMetrics;
}

/** The model call a summary needs, injected by the provider integration. */
export interface SummaryProvider {
  call(prompt: string): Promise<string>;
}

/** Where the window reports misconfiguration and failed summaries (console by default). */
export interface WindowLogger {
  warn(message: string): void;
}

/** The defaults: 100 / false / 1 / 20. */
export const DEFAULT_CONVERSATION_HISTORY_CONFIG: Readonly<Required<ConversationHistoryConfig>> = Object.freeze({
  max_messages: 100,
  summarize_on_trim: false,
  preserve_first_n: 1,
  preserve_last_n: 20,
});

/**
 * The window's estimate in tokens: total characters of all messages divided by 4, rounded
 * up. String content counts as is; any other content (Anthropic blocks, OpenAI
 * multi-part content) by its JSON length, plus the JSON length of OpenAI `tool_calls`.
 */
export function estimateTokens(messages: readonly WindowMessage[]): number {
  let chars = 0;
  for (const message of messages) chars += contentChars(message);
  return tokensForChars(chars);
}

function wholeNumber(config: ConversationHistoryConfig, field: 'max_messages' | 'preserve_first_n' | 'preserve_last_n'): number {
  const value = config[field];
  if (value === undefined) return DEFAULT_CONVERSATION_HISTORY_CONFIG[field];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new ConfigError(field, `${field} must be a whole number ≥ 0, got ${String(value)}`);
  }
  return value;
}

/** Applies the defaults (100 / false / 1 / 20); throws a ConfigError naming the field for a negative, fractional or non-numeric value. */
export function resolveConversationHistoryConfig(config: ConversationHistoryConfig = {}): Required<ConversationHistoryConfig> {
  const summarize = config.summarize_on_trim;
  if (summarize !== undefined && typeof summarize !== 'boolean') {
    throw new ConfigError('summarize_on_trim', `summarize_on_trim must be true or false, got ${String(summarize)}`);
  }
  return {
    max_messages: wholeNumber(config, 'max_messages'),
    summarize_on_trim: summarize ?? DEFAULT_CONVERSATION_HISTORY_CONFIG.summarize_on_trim,
    preserve_first_n: wholeNumber(config, 'preserve_first_n'),
    preserve_last_n: wholeNumber(config, 'preserve_last_n'),
  };
}

function metricsOf(total: number, trimmed: readonly WindowMessage[], evicted: number): ConversationMetrics {
  return { totalMessages: total, preservedMessages: trimmed.length, evictedMessages: evicted, estimatedTokens: estimateTokens(trimmed) };
}

function isMessageLike(value: unknown): value is WindowMessage {
  return value !== null && typeof value === 'object' && typeof (value as { role?: unknown }).role === 'string';
}

/**
 * Inserts the "[Conversation Summary]" assistant message where the evicted messages were
 * (after the kept head, before the kept middle and tail):
 * `[head..., summary, tail...]`. `messages` is the array that was trimmed. A blank
 * summary or a result that evicted nothing is returned unchanged (plain eviction).
 */
export function applySummary<M extends WindowMessage>(messages: readonly M[], result: TrimResult<M>, summary: string): TrimResult<M | SyntheticMessage> {
  if (result.evicted.length === 0 || !summary.trim()) return result;
  let at = 0;
  for (const message of messages) {
    if (result.trimmed[at] !== message) break;
    at++;
  }
  const trimmed: Array<M | SyntheticMessage> = [...result.trimmed.slice(0, at), summaryMessage(summary), ...result.trimmed.slice(at)];
  return { trimmed, evicted: result.evicted, metrics: metricsOf(result.metrics.totalMessages, trimmed, result.evicted.length) };
}

/**
 * Drop-in message-count window with the original Python-style API (snake_case options, `trim`, `trimWithSummary`). Holds only its config and the summary rate-limit counter.
 * The app's own planner makes the same cut through the `count` strategy (`countKeptRanges`), so it is kept for callers of that API, not used by the app.
 * @public
 */
export class ConversationWindow {
  /** The config with defaults applied. */
  readonly config: Readonly<Required<ConversationHistoryConfig>>;
  private readonly logger: WindowLogger;
  private evictedSinceSummary = 0;

  /**
   * @param config the window's options; omitted fields take the defaults 100 / false / 1 / 20.
   * @param logger receives warnings (default: console).
   * @throws ConfigError naming the field when a value is negative, fractional or of the wrong type.
   */
  constructor(config: ConversationHistoryConfig = {}, logger: WindowLogger = console) {
    this.config = Object.freeze(resolveConversationHistoryConfig(config));
    this.logger = logger;
  }

  /** The count cut of this window's config over `total` messages: {@link countKeptRanges}. */
  keptRanges(total: number): { headEnd: number; tailStart: number } | null {
    return countKeptRanges(this.config, total);
  }

  /**
   * Trims `messages` to the cap. Under or at the cap (or with `max_messages` 0) the input array is
   * returned as `trimmed`. Otherwise keeps the first `preserve_first_n` messages, the last
   * `preserve_last_n`, and the newest `max_messages - preserve_first_n - preserve_last_n` of
   * the middle; when `preserve_first_n + preserve_last_n >= max_messages` keeps only head and
   * tail and warns. A tool exchange the cut would split is evicted whole. Never mutates
   * `messages`; `trimmed` and `evicted` hold the same objects, in order.
   */
  trim<M extends WindowMessage>(messages: readonly M[]): TrimResult<M> {
    const total = messages.length;
    const ranges = this.keptRanges(total);
    if (!ranges) return { trimmed: messages as M[], evicted: [], metrics: metricsOf(total, messages, 0) };
    const { max_messages, preserve_first_n, preserve_last_n } = this.config;
    if (preserve_first_n + preserve_last_n >= max_messages) {
      this.logger.warn(
        `ConversationWindow: preserve_first_n (${preserve_first_n}) + preserve_last_n (${preserve_last_n}) >= max_messages (${max_messages}); keeping only the first ${preserve_first_n} and last ${preserve_last_n} messages`,
      );
    }
    const kept = new Uint8Array(total);
    kept.fill(1, 0, ranges.headEnd);
    kept.fill(1, ranges.tailStart, total);
    for (const unit of groupUnits(messages)) {
      // A unit is a tool call with its results: send it whole or not at all.
      if (kept.subarray(unit.start, unit.end).includes(0)) kept.fill(0, unit.start, unit.end);
    }
    const trimmed: M[] = [];
    const evicted: M[] = [];
    for (let i = 0; i < total; i++) (kept[i] ? trimmed : evicted).push(messages[i] as M);
    return { trimmed, evicted, metrics: metricsOf(total, trimmed, evicted.length) };
  }

  /** Same as the standalone {@link estimateTokens}: ceil(characters / 4). */
  estimateTokens(messages: readonly WindowMessage[]): number {
    return estimateTokens(messages);
  }

  /**
   * Asks `provider` to summarize `messages` with the concise summary prompt
   * followed by the messages' text, and resolves to the summary (trimmed). Resolves to ''
   * without calling the provider when the messages carry no prose (only tool calls and
   * results), and to '' when the call fails or returns nothing: the caller then evicts
   * without a summary. Build the replacing message with `summaryMessage` or `applySummary`.
   */
  async summarize(messages: readonly unknown[], provider: SummaryProvider): Promise<string> {
    const readable = messages.filter(isMessageLike);
    if (!hasSummarizableText(readable)) return '';
    try {
      const summary = await provider.call(buildSummaryPrompt('concise', readable));
      return typeof summary === 'string' ? summary.trim() : '';
    } catch (error) {
      this.logger.warn(`ConversationWindow: summarization failed, evicting without a summary (${error instanceof Error ? error.message : String(error)})`);
      return '';
    }
  }

  /**
   * `trim`, then, with `summarize_on_trim`, the summary flow: once at least 10
   * messages have been evicted since the last summary, the evicted messages become one
   * "[Conversation Summary]" assistant message between head and tail. A failed or skipped
   * summary leaves plain eviction; the rate-limit counter then keeps counting.
   */
  async trimWithSummary<M extends WindowMessage>(messages: readonly M[], provider: SummaryProvider): Promise<TrimResult<M | SyntheticMessage>> {
    const result = this.trim(messages);
    if (!this.config.summarize_on_trim || result.evicted.length === 0) return result;
    this.evictedSinceSummary += result.evicted.length;
    if (this.evictedSinceSummary < MIN_EVICTED_FOR_SUMMARY) return result;
    const summary = await this.summarize(result.evicted, provider);
    if (!summary) return result;
    this.evictedSinceSummary = 0;
    return applySummary(messages, result, summary);
  }
}
