/**
 * Anthropic's per-model rules for `thinking` and `output_config.effort`, as the documentation
 * stated them when read on 2026-11-29:
 * - "Effort" (build-with-claude/effort): the levels, and which models take `max` and `xhigh`.
 * - "Thinking" and "Thinking in tool and multi-turn workflows" (build-with-claude/thinking,
 *   build-with-claude/thinking-tool-workflows): `thinking.display`, and thinking blocks passed
 *   back unchanged in a tool loop.
 * - "What's new in Claude Opus 5.5", "What's new in Claude Sonnet 5.5", "What's new in Claude
 *   Haiku 5.5", "What's new in Claude Fable 5.1", "What's new in Claude Fable 5.2", "What's new in
 *   Claude Opus 5" and its migration guide, the Claude Sonnet 5 and Haiku 5.5 model overviews, and
 *   "Prompting Claude Haiku 5.5" (models/…): which thinking types each model takes, at which
 *   effort, the default `display`, and the error texts quoted below.
 * - Amazon Bedrock's "Adaptive thinking" page, for the Claude 4.6, Opus 4.8 and Fable 5 rows, and
 *   "What's new in Claude Opus 4.7" for the omitted display from Opus 4.7 on.
 * Error texts marked "(wording not published)" follow the documented rule but not a quoted message.
 * A model missing from the table keeps the permissive checks: any of the thinking types, any level.
 */

export const EFFORT_LEVELS = ['low', 'medium', 'high', 'xhigh', 'max'] as const;
export type EffortLevel = (typeof EFFORT_LEVELS)[number];
export const THINKING_TYPES = ['enabled', 'disabled', 'adaptive', 'between_tools'] as const;
export type ThinkingType = (typeof THINKING_TYPES)[number];
export type ThinkingDisplay = 'summarized' | 'omitted';

export interface ThinkingRules {
  /** The effort levels the model takes; null when it takes no `output_config.effort` at all. */
  efforts: readonly EffortLevel[] | null;
  /** The `thinking.type` values the model takes. */
  types: readonly ThinkingType[];
  /** Whether the model thinks when the request has no `thinking` field. */
  thinksByDefault: boolean;
  /** `thinking.display` when the request does not set it. */
  defaultDisplay: ThinkingDisplay;
  /** `disabled` / `between_tools` are taken only at this effort or lower. */
  offUpTo?: EffortLevel;
  /** The message for a rejected type, when the model's page words it differently. */
  rejection?: Partial<Record<ThinkingType, string>>;
}

const ALL_LEVELS = EFFORT_LEVELS;
const NO_XHIGH: readonly EffortLevel[] = ['low', 'medium', 'high', 'max'];

/** Opus 5.5, Fable 5.1 and 5.2: adaptive thinking is always on. */
const ALWAYS_ON: ThinkingRules = { efforts: ALL_LEVELS, types: ['adaptive'], thinksByDefault: true, defaultDisplay: 'omitted' };

export const ANTHROPIC_THINKING_RULES: Readonly<Record<string, ThinkingRules>> = {
  // Extended thinking only: `enabled` with a budget, or off; no effort parameter.
  'claude-haiku-4-5': { efforts: null, types: ['enabled', 'disabled'], thinksByDefault: false, defaultDisplay: 'summarized' },
  // Adaptive, with the deprecated `enabled` + budget still taken; `max` but not `xhigh`.
  'claude-opus-4-6': { efforts: NO_XHIGH, types: ['adaptive', 'enabled', 'disabled'], thinksByDefault: false, defaultDisplay: 'summarized' },
  'claude-sonnet-4-6': { efforts: NO_XHIGH, types: ['adaptive', 'enabled', 'disabled'], thinksByDefault: false, defaultDisplay: 'summarized' },
  // Adaptive only, off unless asked for; the thinking text omitted by default (from Opus 4.7 on).
  'claude-opus-4-8': { efforts: ALL_LEVELS, types: ['adaptive', 'disabled'], thinksByDefault: false, defaultDisplay: 'omitted' },
  // Thinking on by default; `disabled` only at effort high or below.
  'claude-opus-5': { efforts: ALL_LEVELS, types: ['adaptive', 'disabled'], thinksByDefault: true, defaultDisplay: 'omitted', offUpTo: 'high' },
  'claude-sonnet-5': { efforts: ALL_LEVELS, types: ['adaptive', 'disabled'], thinksByDefault: true, defaultDisplay: 'omitted' },
  // Adaptive only: neither `disabled` nor `enabled`.
  'claude-fable-5': ALWAYS_ON,
  'claude-fable-5-1': ALWAYS_ON,
  'claude-fable-5-2': ALWAYS_ON,
  'claude-opus-5-5': ALWAYS_ON,
  // `between_tools` replaces `disabled` as the lowest setting, at effort high or below.
  'claude-sonnet-5-5': {
    efforts: ALL_LEVELS,
    types: ['adaptive', 'between_tools'],
    thinksByDefault: true,
    defaultDisplay: 'omitted',
    offUpTo: 'high',
    rejection: {
      // (wording not published: the page says the message points to between_tools)
      disabled:
        '"thinking.type.disabled" is not supported for this model. Use "thinking.type.between_tools" to turn off up-front thinking, ' +
        'or "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.',
    },
  },
  // Adaptive by default; `disabled` only at effort high or below; no manual budget.
  'claude-haiku-5-5': { efforts: ALL_LEVELS, types: ['adaptive', 'disabled'], thinksByDefault: true, defaultDisplay: 'omitted', offUpTo: 'high' },
};

function quoteList(values: readonly string[]): string {
  const quoted = values.map((value) => `'${value}'`);
  return quoted.length <= 1 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

export const THINKING_TYPE_ERROR = `thinking.type: Input should be ${quoteList(THINKING_TYPES)}`;
export const EFFORT_ERROR = `output_config.effort: Input should be ${quoteList(EFFORT_LEVELS)}`;

function rejectedType(rules: ThinkingRules, type: ThinkingType): string {
  const own = rules.rejection?.[type];
  if (own) return own;
  if (rules.types.includes('adaptive')) {
    return `"thinking.type.${type}" is not supported for this model. Use "thinking.type.adaptive" and "output_config.effort" to control thinking behavior.`;
  }
  // (wording not published) Models with extended thinking only.
  return `"thinking.type.${type}" is not supported for this model. Use "thinking.type.enabled" with "thinking.budget_tokens" to control thinking behavior.`;
}

/** What the thinking and effort settings of an accepted request come to. */
export interface ThinkingOutcome {
  /** Whether thinking is on for this request (`between_tools` counts: it thinks between tool calls). */
  on: boolean;
  /**
   * Whether a scripted reply's thinking comes back: unless the request turns up-front thinking
   * off (`disabled`, `between_tools`), or says nothing to a model of the table that thinks only
   * when asked; a model the table does not know thinks as its script says.
   */
  upFront: boolean;
  display: ThinkingDisplay;
}

/**
 * Checks `thinking` and `output_config` of a Messages request against the model's rules (the
 * shape rules for every model, the per-model ones for the models in the table): the error message,
 * or what the settings come to.
 */
export function checkThinkingRules(model: string, body: Record<string, unknown>, maxTokens: number | null): { error: string } | ThinkingOutcome {
  const rules: ThinkingRules | undefined = ANTHROPIC_THINKING_RULES[model];

  let effort: EffortLevel | null = null;
  const outputConfig = body.output_config;
  if (outputConfig !== undefined && outputConfig !== null) {
    if (typeof outputConfig !== 'object' || Array.isArray(outputConfig)) return { error: 'output_config: Input should be a valid dictionary' };
    const raw = (outputConfig as Record<string, unknown>).effort;
    if (raw !== undefined && raw !== null) {
      if (!(EFFORT_LEVELS as readonly unknown[]).includes(raw)) return { error: EFFORT_ERROR };
      effort = raw as EffortLevel;
      // (wording not published) A model without the effort parameter, or without this level.
      if (rules && rules.efforts === null) return { error: 'output_config.effort: This model does not support the effort parameter.' };
      if (rules?.efforts && !rules.efforts.includes(effort)) {
        return { error: `output_config.effort: '${effort}' is not supported for this model. Supported values are ${quoteList(rules.efforts)}.` };
      }
    }
  }

  const thinking = body.thinking;
  let type: ThinkingType | null = null;
  let display: unknown;
  if (thinking !== undefined && thinking !== null) {
    if (typeof thinking !== 'object' || Array.isArray(thinking)) return { error: THINKING_TYPE_ERROR };
    const record = thinking as Record<string, unknown>;
    if (!(THINKING_TYPES as readonly unknown[]).includes(record.type)) return { error: THINKING_TYPE_ERROR };
    type = record.type as ThinkingType;
    if (type === 'enabled') {
      const budget = record.budget_tokens;
      if (typeof budget !== 'number' || !Number.isInteger(budget)) return { error: 'thinking.enabled.budget_tokens: Field required' };
      if (budget < 1024) return { error: 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024' };
      if (maxTokens !== null && maxTokens <= budget) return { error: '`max_tokens` must be greater than `thinking.budget_tokens`' };
    }
    display = record.display;
    if (display !== undefined && display !== null) {
      if (type === 'disabled') return { error: 'thinking.disabled.display: Extra inputs are not permitted' };
      if (display !== 'summarized' && display !== 'omitted') return { error: `thinking.${type}.display: Input should be 'summarized' or 'omitted'` };
    }
    if (rules && !rules.types.includes(type)) return { error: rejectedType(rules, type) };
    if (rules?.offUpTo && (type === 'disabled' || type === 'between_tools') && effort !== null) {
      const allowed = EFFORT_LEVELS.indexOf(rules.offUpTo);
      if (EFFORT_LEVELS.indexOf(effort) > allowed) {
        // (wording not published)
        return {
          error:
            `"thinking.type.${type}" is not supported with "output_config.effort" '${effort}'. ` +
            `Use effort ${quoteList(EFFORT_LEVELS.slice(0, allowed + 1))}, or "thinking.type.adaptive".`,
        };
      }
    }
  }

  const on = type === null ? (rules?.thinksByDefault ?? false) : type !== 'disabled';
  const chosen = display === 'summarized' || display === 'omitted' ? display : (rules?.defaultDisplay ?? 'summarized');
  const asked = type !== null || rules === undefined || rules.thinksByDefault;
  return { on, upFront: asked && type !== 'disabled' && type !== 'between_tools', display: chosen };
}
