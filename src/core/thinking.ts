/**
 * Thinking and reasoning: what each model takes, what the user chose, and the request
 * fields that carry the choice. A choice is kept per conversation (and as a default in
 * Settings); before every request it is made valid for the model in force, so a request
 * never carries a combination the model refuses.
 *
 * Facts read on 2026-11-29 from the providers' documentation:
 * - Anthropic (Claude Platform Docs): “Effort” (levels, and which models take xhigh and max;
 *   Opus 5.5 and Haiku 5.5 default to medium, the others to high), “What's new in Claude
 *   Opus 5.5” (thinking cannot be turned off; `enabled` with `budget_tokens` and `disabled`
 *   answer 400; the same holds for Fable 5.1), the Opus 5.5 and Sonnet 5.5 model pages
 *   (Sonnet 5.5 turns up-front thinking off with `between_tools`), “Adaptive thinking”
 *   (Fable 5 takes adaptive only; Opus 4.6 still takes a budget, deprecated; older models
 *   such as Haiku 4.5 take only a budget), and the `display` field (`summarized`, or
 *   `omitted`, the default on the 5-series, which returns thinking blocks with no text).
 * - OpenAI (API docs): the model pages of GPT-6.1 Terra (`none`, `low`, `medium` (default),
 *   `high`, `xhigh`, `max`), and GPT-6 Sol and GPT-6 Luna (`none` to `max`, default medium),
 *   as quoted by LiteLLM's release note; GPT-6.1 Sol dropped `none` (a reseller's guide
 *   quoting OpenAI's reasoning guide). For GPT-6.2 Sol, GPT-6.2 Astra and GPT-6 Astra no
 *   list was found: only `low`, `medium` and `high`, which every GPT-6 model takes, are offered.
 */
import type { ProviderId } from './conversation';

/** Effort levels, lowest first. */
export const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
export type Effort = (typeof EFFORTS)[number];

/** What the user chose, stored as is. */
export type ThinkingSetting = { kind: 'default' } | { kind: 'off' } | { kind: 'effort'; effort: Effort } | { kind: 'budget'; tokens: number };

export const DEFAULT_THINKING: ThinkingSetting = { kind: 'default' };

/** What a model takes. */
export interface ThinkingSupport {
  /** The effort levels it takes, lowest first (Anthropic: `output_config.effort`; OpenAI: `reasoning_effort`). */
  efforts: readonly Effort[];
  /** Its level when the request names none. */
  defaultEffort?: Effort;
  /**
   * How thinking is turned off: `disabled` (Anthropic `{type: "disabled"}`), `between_tools`
   * (Anthropic: only short notes between tool calls), `none` (OpenAI's lowest effort), or
   * not at all.
   */
  off: 'disabled' | 'between_tools' | 'none' | 'never';
  /** Anthropic: thinks with `{type: "adaptive"}` (and an effort). */
  adaptive: boolean;
  /** Anthropic: takes `{type: "enabled", budget_tokens}`, at least 1,024 tokens and under max_tokens. */
  budget: boolean;
  /** Anthropic: thinks when the request says nothing. */
  onByDefault: boolean;
  /** Anthropic: returns no thinking text unless the request asks for `display: "summarized"`. */
  omitsByDefault: boolean;
  /**
   * Anthropic's “preserved thinking”: a thinking block sent back is used only when nothing
   * before it (system, tools, earlier messages) changed since it was written; otherwise the
   * API refuses the request (see {@link keepValidThinking}).
   */
  preservesThinking?: boolean;
}

/** The least thinking budget Anthropic takes. */
export const MIN_THINKING_BUDGET = 1024;
/** The budgets offered, as presets, on models that take one. */
export const THINKING_BUDGETS = [1024, 4096, 16_384, 32_768] as const;

const ANTHROPIC_FIVE: readonly Effort[] = ['low', 'medium', 'high', 'xhigh', 'max'];

function anthropicAdaptive(defaultEffort: Effort, off: ThinkingSupport['off'], preservesThinking = false): ThinkingSupport {
  return { efforts: ANTHROPIC_FIVE, defaultEffort, off, adaptive: true, budget: false, onByDefault: true, omitsByDefault: true, preservesThinking };
}

function openAIReasoning(efforts: readonly Effort[]): ThinkingSupport {
  return {
    efforts,
    defaultEffort: 'medium',
    off: efforts.includes('none') ? 'none' : 'never',
    adaptive: false,
    budget: false,
    onByDefault: true,
    omitsByDefault: false,
  };
}

const OPENAI_NONE_TO_MAX: readonly Effort[] = ['none', 'low', 'medium', 'high', 'xhigh', 'max'];

/** Per model id (as the registry names it). */
const SUPPORT: Readonly<Record<string, ThinkingSupport>> = {
  // “Prefix checks on thinking blocks” lists the models that run the check: Fable 5.2 and 5.1,
  // Opus 5.5, Sonnet 5.5 and Haiku 5.5.
  'claude-fable-5-2': anthropicAdaptive('high', 'never', true),
  'claude-opus-5-5': anthropicAdaptive('medium', 'never', true),
  'claude-sonnet-5-5': anthropicAdaptive('high', 'between_tools', true),
  'claude-haiku-5-5': anthropicAdaptive('medium', 'disabled', true),
  'claude-fable-5-1': anthropicAdaptive('high', 'never', true),
  'claude-fable-5': anthropicAdaptive('high', 'never'),
  'claude-opus-5': anthropicAdaptive('high', 'disabled'),
  'claude-sonnet-5': anthropicAdaptive('high', 'disabled'),
  'claude-opus-4-6': {
    efforts: ['low', 'medium', 'high', 'max'],
    defaultEffort: 'high',
    off: 'disabled',
    adaptive: true,
    budget: true,
    onByDefault: false,
    omitsByDefault: false,
  },
  'claude-haiku-4-5': { efforts: [], off: 'disabled', adaptive: false, budget: true, onByDefault: false, omitsByDefault: false },
  'gpt-6.2-astra': openAIReasoning(['low', 'medium', 'high']),
  'gpt-6.2-sol': openAIReasoning(['low', 'medium', 'high']),
  'gpt-6.1-terra': openAIReasoning(OPENAI_NONE_TO_MAX),
  'gpt-6.1-sol': openAIReasoning(['low', 'medium', 'high', 'xhigh', 'max']),
  'gpt-6-luna': openAIReasoning(OPENAI_NONE_TO_MAX),
  'gpt-6-astra': openAIReasoning(['low', 'medium', 'high']),
  'gpt-6-sol': openAIReasoning(OPENAI_NONE_TO_MAX),
};

/** What `modelId` takes, or undefined for a model whose thinking controls are not known (nothing is then sent). */
export function thinkingSupport(provider: ProviderId, modelId: string): ThinkingSupport | undefined {
  if (provider !== 'anthropic' && provider !== 'openai') return undefined;
  const support = SUPPORT[modelId];
  if (!support) return undefined;
  const isAnthropic = modelId.startsWith('claude-');
  return isAnthropic === (provider === 'anthropic') ? support : undefined;
}

export function isThinkingSetting(value: unknown): value is ThinkingSetting {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as { kind?: unknown; effort?: unknown; tokens?: unknown };
  switch (v.kind) {
    case 'default':
    case 'off':
      return true;
    case 'effort':
      return typeof v.effort === 'string' && (EFFORTS as readonly string[]).includes(v.effort);
    case 'budget':
      return typeof v.tokens === 'number' && Number.isInteger(v.tokens) && v.tokens >= MIN_THINKING_BUDGET && v.tokens <= 1_000_000;
    default:
      return false;
  }
}

function sameSetting(a: ThinkingSetting, b: ThinkingSetting): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

const rank = (effort: Effort) => EFFORTS.indexOf(effort);

/** The nearest level the model takes: the highest at or below `effort`, else its lowest. */
function nearestEffort(efforts: readonly Effort[], effort: Effort): Effort | undefined {
  const below = efforts.filter((e) => rank(e) <= rank(effort));
  return below.at(-1) ?? efforts[0];
}

/** The budget that stands for an effort on a model that takes only budgets. */
function budgetForEffort(effort: Effort): number {
  if (rank(effort) <= rank('low')) return THINKING_BUDGETS[0];
  if (effort === 'medium') return THINKING_BUDGETS[1];
  if (effort === 'high') return THINKING_BUDGETS[2];
  return THINKING_BUDGETS[3];
}

function effortForBudget(tokens: number): Effort {
  if (tokens <= 2048) return 'low';
  if (tokens <= 8192) return 'medium';
  if (tokens <= 24_576) return 'high';
  return 'max';
}

/**
 * `setting` made valid for a model: kept when the model takes it, else the nearest choice
 * it does take (off where it cannot be turned off becomes its lowest level; an effort it
 * does not take, the nearest one below; a budget on a model without budgets, the effort
 * that stands for it). A model whose controls are unknown gets the default: nothing sent.
 * `maxOutputTokens` bounds a budget (it must stay under max_tokens).
 */
export function validThinking(support: ThinkingSupport | undefined, setting: ThinkingSetting, maxOutputTokens: number): ThinkingSetting {
  if (setting.kind === 'default') return setting;
  if (!support) return DEFAULT_THINKING;
  switch (setting.kind) {
    case 'off':
      if (support.off !== 'never') return setting;
      return support.efforts[0] ? { kind: 'effort', effort: support.efforts[0] } : DEFAULT_THINKING;
    case 'effort': {
      if (setting.effort === 'none' && support.off !== 'never') return { kind: 'off' };
      if (support.efforts.length === 0) {
        if (!support.budget) return DEFAULT_THINKING;
        if (rank(setting.effort) <= rank('minimal')) return support.off !== 'never' ? { kind: 'off' } : DEFAULT_THINKING;
        return validThinking(support, { kind: 'budget', tokens: budgetForEffort(setting.effort) }, maxOutputTokens);
      }
      const effort = nearestEffort(support.efforts, setting.effort);
      // OpenAI's lowest level turns reasoning off: it is chosen as Off.
      if (effort === 'none') return { kind: 'off' };
      return effort ? { kind: 'effort', effort } : DEFAULT_THINKING;
    }
    case 'budget': {
      if (!support.budget) return validThinking(support, { kind: 'effort', effort: effortForBudget(setting.tokens) }, maxOutputTokens);
      const most = maxOutputTokens - 1;
      if (most < MIN_THINKING_BUDGET) return support.off !== 'never' ? { kind: 'off' } : DEFAULT_THINKING;
      return { kind: 'budget', tokens: Math.min(Math.max(setting.tokens, MIN_THINKING_BUDGET), most) };
    }
  }
}

/** Whether making `setting` valid for the model changed it (the user is told). */
export function thinkingChanged(support: ThinkingSupport | undefined, setting: ThinkingSetting, maxOutputTokens: number): boolean {
  return !sameSetting(validThinking(support, setting, maxOutputTokens), setting);
}

const EFFORT_LABELS: Record<Effort, string> = {
  none: 'Off',
  minimal: 'Minimal',
  low: 'Low',
  medium: 'Medium',
  high: 'High',
  xhigh: 'Extra high',
  max: 'Max',
};

/** A choice as the user reads it: "Medium", "Off", "Up to 4,096 tokens", "Model default (medium)". */
export function thinkingLabel(setting: ThinkingSetting, support: ThinkingSupport | undefined): string {
  switch (setting.kind) {
    case 'default':
      return support?.defaultEffort ? `Model default (${EFFORT_LABELS[support.defaultEffort].toLowerCase()})` : 'Model default';
    case 'off':
      return support?.off === 'between_tools' ? 'Off (notes between tools only)' : 'Off';
    case 'effort':
      return EFFORT_LABELS[setting.effort];
    case 'budget':
      return `Up to ${setting.tokens.toLocaleString('en-US')} tokens`;
  }
}

/** Every choice a model takes, in the order a menu lists them. */
export function thinkingChoices(support: ThinkingSupport | undefined, maxOutputTokens: number): ThinkingSetting[] {
  const choices: ThinkingSetting[] = [DEFAULT_THINKING];
  if (!support) return choices;
  if (support.off !== 'never') choices.push({ kind: 'off' });
  for (const effort of support.efforts) if (effort !== 'none') choices.push({ kind: 'effort', effort });
  if (support.budget) for (const tokens of THINKING_BUDGETS) if (tokens < maxOutputTokens) choices.push({ kind: 'budget', tokens });
  return choices;
}

/** A choice as one string, for a `<select>`'s values. */
export function thinkingKey(setting: ThinkingSetting): string {
  switch (setting.kind) {
    case 'default':
    case 'off':
      return setting.kind;
    case 'effort':
      return `effort:${setting.effort}`;
    case 'budget':
      return `budget:${setting.tokens}`;
  }
}

export function thinkingFromKey(key: string): ThinkingSetting | undefined {
  const [kind, value] = key.split(':');
  const setting = kind === 'effort' ? { kind, effort: value } : kind === 'budget' ? { kind, tokens: Number(value) } : { kind };
  return isThinkingSetting(setting) ? setting : undefined;
}

/** The request fields for a valid choice. */
export interface ThinkingRequest {
  /** Anthropic `thinking`. */
  thinking?: { type: 'adaptive'; display?: 'summarized' } | { type: 'enabled'; budget_tokens: number } | { type: 'disabled' } | { type: 'between_tools' };
  /** Anthropic `output_config.effort`. */
  effort?: Effort;
  /** OpenAI `reasoning_effort` (Chat Completions), `reasoning.effort` (Responses). */
  reasoningEffort?: Effort;
  /**
   * OpenAI: the model reasons on this request, so the Responses API asks for its reasoning
   * summary and its reasoning items, encrypted, to send back inside a tool loop.
   */
  reasons?: boolean;
  /** Tokens of max_tokens the thinking may take, beyond the answer's own reserve (a budget). */
  extraOutput: number;
  /**
   * Anthropic: ask the API to drop thinking that fails its prefix check rather than refuse the
   * request (`thinking.block_binding`, under the `thinking-binding-controls-2026-08-01` beta).
   */
  dropMismatched?: boolean;
}

/**
 * The fields that carry `setting` (already valid for the model, see {@link validThinking}).
 * Anthropic models that think by default but return no text ask for `display: "summarized"`,
 * so the Thinking block has something to show.
 */
export function thinkingRequest(provider: ProviderId, support: ThinkingSupport | undefined, setting: ThinkingSetting): ThinkingRequest {
  if (!support) return { extraOutput: 0 };
  if (provider === 'openai') {
    if (setting.kind === 'off') return { reasoningEffort: 'none', extraOutput: 0 };
    if (setting.kind === 'effort') return { reasoningEffort: setting.effort, reasons: true, extraOutput: 0 };
    return { reasons: true, extraOutput: 0 };
  }
  const adaptive = (): ThinkingRequest['thinking'] => (support.omitsByDefault ? { type: 'adaptive', display: 'summarized' } : { type: 'adaptive' });
  switch (setting.kind) {
    case 'default':
      return support.adaptive && support.onByDefault ? { thinking: adaptive(), extraOutput: 0 } : { extraOutput: 0 };
    case 'off':
      return { thinking: { type: support.off === 'between_tools' ? 'between_tools' : 'disabled' }, extraOutput: 0 };
    case 'effort':
      return support.adaptive ? { thinking: adaptive(), effort: setting.effort, extraOutput: 0 } : { extraOutput: 0 };
    case 'budget':
      return { thinking: { type: 'enabled', budget_tokens: setting.tokens }, extraOutput: setting.tokens };
  }
}
