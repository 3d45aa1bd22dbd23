import type { ProviderId } from './conversation';
import { ConfigError } from './errors';

/** Prices in USD per million tokens. */
export interface ModelPrices {
  /** Uncached input tokens. */
  input: number;
  output: number;
  /** Tokens written to the prompt cache (Anthropic: the 5-minute write; OpenAI: the default retention). */
  cacheWrite: number;
  /** Tokens read from the prompt cache. */
  cacheRead: number;
}

/** Facts about one model. Token counts are whole numbers > 0. */
export interface ModelInfo {
  /** The API model id, e.g. `claude-opus-5-5`. */
  id: string;
  provider: ProviderId;
  /** Name shown to people. */
  label: string;
  /** Input + output tokens one request may hold. */
  contextWindow: number;
  /** Most output tokens one response may have. */
  maxOutputTokens: number;
  /** Most input tokens, where the provider caps input below `contextWindow - maxOutputTokens`. */
  maxInputTokens?: number;
  /** Absent when not published (custom endpoints, unknown models). */
  prices?: ModelPrices;
  /**
   * Prices for the whole request once its prompt (input + cache reads + cache writes)
   * exceeds `aboveInputTokens`, for models billed in two bands.
   */
  longPromptPricing?: { aboveInputTokens: number; prices: ModelPrices };
  /** Shortest prefix the provider will cache, in tokens; absent when not published. */
  cacheMinTokens?: number;
  /** Other ids the API accepts for this model. */
  aliases?: string[];
  /** Whether the provider compacts on its side for this model, as its models endpoint stated; absent, the documented list decides (`compactsOnProvider`). */
  providerCompaction?: boolean;
  /** Whether the provider clears tool results on its side for this model, as its models endpoint stated; absent, the documented list decides (`supportsContextEditing`). */
  providerContextEditing?: boolean;
  /** Where the facts come from. */
  source: string;
  /** Date the facts were read, YYYY-MM-DD. */
  asOf: string;
}

/** Date the built-in registry was read from the providers' documentation. */
export const REGISTRY_AS_OF = '2026-11-22';

/** The context window assumed for a model no registry knows. */
export const DEFAULT_CONTEXT_WINDOW = 4096;
/** The output limit assumed for a model no registry knows. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

/** The model of the no-key Demo, answered locally. */
export const DEMO_MODEL_ID = 'windowpane-demo';

// Facts read on 2026-11-22 from the providers' own documentation pages:
// - Anthropic (Claude Platform Docs): the model pages “Claude Opus 5.5”, “Claude Sonnet 5.5”,
//   “Claude Haiku 5.5”, “Claude Fable 5.1”, “Claude Fable 5”, “Claude Opus 5”, “Claude Sonnet 5”,
//   “Claude Opus 4.6”, “What’s new in Claude Fable 5.2”, the “Models overview” and “Pricing”.
// - OpenAI (API docs): the “Models” overview and the model pages “GPT-6.2 Sol”, “GPT-6 Sol”,
//   “GPT-6 Luna”, plus “GPT-6.2 Astra”, “GPT-6.1 Terra” and “GPT-6 Astra” as cited below.
// Where the documentation disagreed or was silent, the entry says so.
const ANTHROPIC_DOCS = 'Claude Platform Docs: model page and “Pricing”';
const OPENAI_DOCS = 'OpenAI API docs: “Models” and the model page';

/** Anthropic's cache prices: 5-minute write at 1.25× input, read at 0.1× input. */
function anthropicPrices(input: number, output: number, cacheRead = input * 0.1): ModelPrices {
  return { input, output, cacheWrite: input * 1.25, cacheRead };
}

/** OpenAI's long-prompt band: above 272K input tokens, input and cache ×2, output ×1.5. */
function openAILongPrompt(prices: ModelPrices): ModelInfo['longPromptPricing'] {
  return {
    aboveInputTokens: 272_000,
    prices: { input: prices.input * 2, output: prices.output * 1.5, cacheWrite: prices.cacheWrite * 2, cacheRead: prices.cacheRead * 2 },
  };
}

function openAIModel(id: string, label: string, prices: ModelPrices, extra: Partial<ModelInfo> = {}): ModelInfo {
  return {
    id,
    provider: 'openai',
    label,
    contextWindow: 1_050_000,
    maxInputTokens: 922_000,
    maxOutputTokens: 128_000,
    prices,
    longPromptPricing: openAILongPrompt(prices),
    source: OPENAI_DOCS,
    asOf: REGISTRY_AS_OF,
    ...extra,
  };
}

function anthropicModel(id: string, label: string, prices: ModelPrices, extra: Partial<ModelInfo> = {}): ModelInfo {
  return {
    id,
    provider: 'anthropic',
    label,
    contextWindow: 1_000_000,
    maxOutputTokens: 128_000,
    prices,
    source: ANTHROPIC_DOCS,
    asOf: REGISTRY_AS_OF,
    ...extra,
  };
}

/**
 * The built-in registry: the current Anthropic and OpenAI models first, older ones still
 * served after them, then the Demo model. Prices in USD per million tokens.
 */
export const MODEL_REGISTRY: readonly ModelInfo[] = [
  // Anthropic, current line-up.
  // Fable 5.2 (released 2026-11-09): context and output from “What’s new in Claude Fable 5.2”.
  // Its prices were not on any provider page the search reached; $8 / $40, a $10 5-minute
  // cache write and a $0.20 cache read are what several independent price trackers quote
  // from Anthropic's pricing page.
  anthropicModel(
    'claude-fable-5-2',
    'Claude Fable 5.2',
    { input: 8, output: 40, cacheWrite: 10, cacheRead: 0.2 },
    {
      source: 'Claude Platform Docs: “What’s new in Claude Fable 5.2”; prices as quoted by third parties',
    },
  ),
  // Opus 5.5 reads its cache at 0.05× input.
  anthropicModel('claude-opus-5-5', 'Claude Opus 5.5', anthropicPrices(4, 20, 0.2)),
  // Sonnet 5.5: the model page (a copy from before Haiku 5.5 shipped) says a $0.20 cache
  // read; the pricing page, as read by several trackers, cut it to $0.10 on 2026-10-07.
  // The later figure is used.
  anthropicModel('claude-sonnet-5-5', 'Claude Sonnet 5.5', anthropicPrices(2, 10, 0.1)),
  // Haiku 5.5 is billed in two bands by prompt length (input + cache reads + writes).
  // Input, output and cache-write prices are on its model page; the $0.01 / $0.05 cache
  // reads were cut off there and come from the pricing page as quoted by third parties.
  anthropicModel(
    'claude-haiku-5-5',
    'Claude Haiku 5.5',
    { input: 0.1, output: 0.5, cacheWrite: 0.125, cacheRead: 0.01 },
    {
      longPromptPricing: { aboveInputTokens: 100_000, prices: { input: 0.5, output: 2.5, cacheWrite: 0.625, cacheRead: 0.05 } },
    },
  ),
  // OpenAI, current line-up. Context 1,050,000, max input 922,000, max output 128,000.
  // GPT-6.2 Astra (released 2026-11-17): $8 / $40 as quoted from its model page by
  // third parties; its cached-input and cache-write prices were not found, so they follow
  // GPT-6 Astra's ratios (10 % and 1.25× of input). The long-prompt band is assumed to be
  // the one documented for GPT-6.2 Sol and GPT-6 Luna.
  openAIModel(
    'gpt-6.2-astra',
    'GPT-6.2 Astra',
    { input: 8, output: 40, cacheWrite: 10, cacheRead: 0.8 },
    {
      source: 'OpenAI API docs (as quoted by third parties); cache prices derived',
    },
  ),
  openAIModel('gpt-6.2-sol', 'GPT-6.2 Sol', { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.1 }),
  // GPT-6.1 Terra: $1 / $5, context and output from the “Models” page; the $0.05 cached
  // input and $1.25 cache write are third-party quotes, and no input cap was published.
  openAIModel(
    'gpt-6.1-terra',
    'GPT-6.1 Terra',
    { input: 1, output: 5, cacheWrite: 1.25, cacheRead: 0.05 },
    {
      maxInputTokens: undefined,
      source: 'OpenAI API docs: “Models”; cache prices as quoted by third parties',
    },
  ),
  openAIModel('gpt-6-luna', 'GPT-6 Luna', { input: 0.1, output: 0.5, cacheWrite: 0.125, cacheRead: 0.01 }),
  // Anthropic, older models still served.
  anthropicModel('claude-fable-5-1', 'Claude Fable 5.1', anthropicPrices(10, 50, 0.25)),
  anthropicModel('claude-fable-5', 'Claude Fable 5', anthropicPrices(10, 50)),
  anthropicModel('claude-opus-5', 'Claude Opus 5', anthropicPrices(5, 25)),
  anthropicModel('claude-sonnet-5', 'Claude Sonnet 5', anthropicPrices(2, 10)),
  anthropicModel('claude-opus-4-6', 'Claude Opus 4.6', anthropicPrices(5, 25)),
  anthropicModel('claude-haiku-4-5', 'Claude Haiku 4.5', anthropicPrices(1, 5), {
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    aliases: ['claude-haiku-4-5-20251001'],
  }),
  // OpenAI, older models still served. GPT-6 Astra's cache prices ($1 cached, $12.50
  // write) are third-party quotes of its model page.
  openAIModel('gpt-6-astra', 'GPT-6 Astra', { input: 10, output: 50, cacheWrite: 12.5, cacheRead: 1 }),
  openAIModel('gpt-6.1-sol', 'GPT-6.1 Sol', { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.1 }),
  openAIModel('gpt-6-sol', 'GPT-6 Sol', { input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.2 }),
  // The no-key Demo: a tiny window so trimming is visible after a few messages.
  {
    id: DEMO_MODEL_ID,
    provider: 'demo',
    label: 'Demo (no key)',
    contextWindow: 4000,
    maxOutputTokens: 512,
    prices: { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 },
    source: 'Windowpane',
    asOf: REGISTRY_AS_OF,
  },
];

/** How a model id was matched: as is, through an alias, after stripping a provider namespace or date, or not at all. */
export type ModelMatch = 'exact' | 'alias' | 'prefix' | 'default';

/** A model's facts after resolution, with whether any registry knew the id. */
export interface ResolvedModelInfo extends ModelInfo {
  /** False when the facts are the defaults for an unknown model (plus any explicit settings). */
  known: boolean;
  match: ModelMatch;
}

export interface ResolveModelOptions {
  /** The user's own settings for this model; each defined field wins over everything. */
  explicit?: Partial<ModelInfo>;
  /** User-added models; they win over built-in entries with the same id. */
  custom?: readonly ModelInfo[];
  /** Provider recorded for an id no registry knows; default 'openai-compatible'. */
  provider?: ProviderId;
}

// A date or version tail the APIs append to a model id: -20260101, -2026-01-01, @20260101,
// -latest, -v1, -v1:0.
const DATED_SUFFIX = /^(.+?)[-@](?:\d{8}|\d{4}-\d{2}-\d{2}|latest|v\d+(?:[.:]\d+)*)$/;

function lookup(id: string, entries: readonly ModelInfo[]): { info: ModelInfo; match: ModelMatch } | undefined {
  for (const info of entries) if (info.id.toLowerCase() === id) return { info, match: 'exact' };
  for (const info of entries) {
    if (info.aliases?.some((alias) => alias.toLowerCase() === id)) return { info, match: 'alias' };
  }
  return undefined;
}

/**
 * Finds the registry entry for `id` (case-insensitive): custom models first, then the
 * built-in registry; exact id, then alias, then the id without a provider namespace
 * (`anthropic/claude-opus-5-5`) or a date/version tail (`claude-opus-5-5-20261101`).
 * A different version (`claude-opus-5-7`) never matches another one.
 */
export function findModelInfo(id: string, custom: readonly ModelInfo[] = []): { info: ModelInfo; match: ModelMatch } | undefined {
  const entries = custom.length > 0 ? [...custom, ...MODEL_REGISTRY] : MODEL_REGISTRY;
  const wanted = id.trim().toLowerCase();
  const direct = lookup(wanted, entries);
  if (direct) return direct;
  const candidates: string[] = [];
  const bare = wanted.includes('/') ? wanted.slice(wanted.lastIndexOf('/') + 1) : wanted;
  if (bare !== wanted) candidates.push(bare);
  const dated = DATED_SUFFIX.exec(bare);
  if (dated?.[1]) candidates.push(dated[1]);
  for (const candidate of candidates) {
    const found = lookup(candidate, entries);
    if (found) return { info: found.info, match: 'prefix' };
  }
  return undefined;
}

const COUNT_FIELDS = ['contextWindow', 'maxOutputTokens', 'maxInputTokens', 'cacheMinTokens'] as const;
const PRICE_FIELDS = ['input', 'output', 'cacheWrite', 'cacheRead'] as const;

function checkPrices(prices: unknown, path: string): void {
  if (typeof prices !== 'object' || prices === null) throw new ConfigError(path, `${path} must be an object of prices in USD per million tokens`);
  for (const field of PRICE_FIELDS) {
    const value = (prices as Record<string, unknown>)[field];
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
      throw new ConfigError(`${path}.${field}`, `${path}.${field} must be a price ≥ 0 in USD per million tokens, got ${String(value)}`);
    }
  }
}

/** Throws ConfigError naming the first field of `info` outside its documented range. */
export function validateModelInfo(info: Partial<ModelInfo>, path = 'model'): void {
  for (const field of COUNT_FIELDS) {
    const value = info[field];
    if (value === undefined) continue;
    if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
      throw new ConfigError(`${path}.${field}`, `${path}.${field} must be a whole number of tokens > 0, got ${String(value)}`);
    }
  }
  if (info.prices !== undefined) checkPrices(info.prices, `${path}.prices`);
  if (info.longPromptPricing !== undefined) {
    const { aboveInputTokens, prices } = info.longPromptPricing;
    if (!Number.isInteger(aboveInputTokens) || aboveInputTokens <= 0) {
      throw new ConfigError(`${path}.longPromptPricing.aboveInputTokens`, `${path}.longPromptPricing.aboveInputTokens must be a whole number of tokens > 0`);
    }
    checkPrices(prices, `${path}.longPromptPricing.prices`);
  }
}

/**
 * The facts to plan and price a request with, by precedence: each defined field of
 * `explicit` > the registry entry (custom models, then built-in; see `findModelInfo`) >
 * the default (4,096-token window, 4,096 output). An unknown id gets the default
 * with `known: false`, so the UI can say the limits are guesses. Throws ConfigError for
 * an explicit or custom value outside its range.
 */
export function resolveModelInfo(id: string, options: ResolveModelOptions = {}): ResolvedModelInfo {
  const { explicit, custom = [], provider = 'openai-compatible' } = options;
  custom.forEach((model, index) => validateModelInfo(model, `custom[${index}]`));
  if (explicit) validateModelInfo(explicit, 'explicit');
  const found = findModelInfo(id, custom);
  const base: ModelInfo = found?.info ?? {
    id,
    provider,
    label: id,
    contextWindow: DEFAULT_CONTEXT_WINDOW,
    maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS,
    source: 'default (unknown model)',
    asOf: REGISTRY_AS_OF,
  };
  const overrides: Partial<ModelInfo> = {};
  if (explicit) {
    for (const [key, value] of Object.entries(explicit)) {
      if (value !== undefined) (overrides as Record<string, unknown>)[key] = value;
    }
  }
  return { ...base, ...overrides, known: found !== undefined, match: found?.match ?? 'default' };
}

/**
 * The prices that apply to a request whose prompt (input + cache reads + cache writes)
 * is `promptTokens` long: the long-prompt band above its threshold, else the base
 * prices; undefined when the model has none.
 */
export function pricesForPrompt(info: Pick<ModelInfo, 'prices' | 'longPromptPricing'>, promptTokens: number): ModelPrices | undefined {
  const band = info.longPromptPricing;
  if (band && promptTokens > band.aboveInputTokens) return band.prices;
  return info.prices;
}
