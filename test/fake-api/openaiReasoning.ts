import { REASONING_EFFORTS } from './openai';
import type { ApiFailure } from './types';

/**
 * Which `reasoning.effort` levels a model takes on the Responses API, and at which level it reasons
 * when the request sets none. From the `reasoning.effort` description of OpenAI's API reference
 * (https://platform.openai.com/docs/api-reference/responses/create, as its OpenAPI text is
 * mirrored in the SDK docs at learn.microsoft.com/en-us/javascript/api/@azure/ai-projects/reasoningeffort,
 * read 2026-11-29): "gpt-5.1 defaults to none, which does not perform reasoning. The supported
 * reasoning values for gpt-5.1 are none, low, medium, and high"; "All models before gpt-5.1
 * default to medium reasoning effort, and do not support none"; "The gpt-5-pro model defaults to
 * (and only supports) high reasoning effort"; "xhigh is supported for all models after
 * gpt-5.1-codex-max". The o-series taking low, medium and high only, and gpt-5.2 adding xhigh, are
 * from the same pages' model tables. The refusal's text is the real API's as publicly reported
 * (openai/openai-agents-python#2089: "Unsupported value: 'minimal' is not supported with the
 * 'gpt-5.1' model. Supported values are: 'none', 'low', 'medium', and 'high'.", code
 * `unsupported_value`); the non-reasoning models' "Unsupported parameter" text follows the API's
 * pattern for such parameters (wording not confirmed). Models not in the table take every level
 * and reason only when asked, as the Chat Completions path of the fake treats them.
 */
interface EffortRule {
  /** The levels taken; null for a model that does not reason at all. */
  efforts: readonly string[] | null;
  /** The level used when the request sets none (`none`: no reasoning). */
  byDefault: string;
}

const O_SERIES: EffortRule = { efforts: ['low', 'medium', 'high'], byDefault: 'medium' };
const GPT_5: EffortRule = { efforts: ['minimal', 'low', 'medium', 'high'], byDefault: 'medium' };
const NOT_REASONING: EffortRule = { efforts: null, byDefault: 'none' };

export const OPENAI_EFFORT_RULES: Readonly<Record<string, EffortRule>> = {
  o1: O_SERIES,
  o3: O_SERIES,
  'o3-mini': O_SERIES,
  'o4-mini': O_SERIES,
  'gpt-5': GPT_5,
  'gpt-5-mini': GPT_5,
  'gpt-5-nano': GPT_5,
  'gpt-5-pro': { efforts: ['high'], byDefault: 'high' },
  'gpt-5.1': { efforts: ['none', 'low', 'medium', 'high'], byDefault: 'none' },
  'gpt-5.2': { efforts: ['none', 'low', 'medium', 'high', 'xhigh'], byDefault: 'none' },
  'gpt-4o': NOT_REASONING,
  'gpt-4o-mini': NOT_REASONING,
  'gpt-4.1': NOT_REASONING,
  'gpt-4.1-mini': NOT_REASONING,
};

/** The rule for a model id or one of its dated snapshots (`gpt-5-2025-08-07`). */
function ruleFor(model: string): EffortRule | undefined {
  return OPENAI_EFFORT_RULES[model] ?? OPENAI_EFFORT_RULES[model.replace(/-\d{4}-\d{2}-\d{2}$/, '')];
}

function quoted(values: readonly string[]): string {
  const list = values.map((value) => `'${value}'`);
  return list.length <= 1 ? list.join('') : `${list.slice(0, -1).join(', ')}, and ${list.at(-1)}`;
}

function failure(message: string, param: string, code: string): ApiFailure {
  return { status: 400, type: 'invalid_request_error', message, param, code };
}

/**
 * Whether the model cannot reason at all (the table's non-reasoning models). Such a model
 * refuses reasoning items in its input: "Reasoning input items can only be provided to a
 * reasoning or computer use model. Remove reasoning items from your input and try again.", a
 * 400 with param `input` (the real API's text as public clients quote it when a conversation
 * moves from a reasoning model to gpt-4.1, read 2026-11-29; the param is not confirmed).
 */
export function neverReasons(model: string): boolean {
  return ruleFor(model)?.efforts === null;
}

export const REASONING_INPUT_REFUSED =
  'Reasoning input items can only be provided to a reasoning or computer use model. Remove reasoning items from your input and try again.';

/** The effort a request runs at (`none` when the model does not reason), or the failure. */
export function checkReasoningEffort(model: string, effort: unknown, param: string): { effort: string } | { failure: ApiFailure } {
  const rule = ruleFor(model);
  if (effort === undefined || effort === null) return { effort: rule?.byDefault ?? 'none' };
  if (typeof effort !== 'string' || !REASONING_EFFORTS.includes(effort)) {
    return { failure: failure(`Invalid value: '${String(effort)}'. Supported values are: ${quoted(REASONING_EFFORTS)}.`, param, 'invalid_value') };
  }
  if (rule?.efforts === null) {
    return { failure: failure(`Unsupported parameter: '${param}' is not supported with this model.`, param, 'unsupported_parameter') };
  }
  if (rule && !rule.efforts.includes(effort)) {
    return {
      failure: failure(
        `Unsupported value: '${effort}' is not supported with the '${model}' model. Supported values are: ${quoted(rule.efforts)}.`,
        param,
        'unsupported_value',
      ),
    };
  }
  return { effort };
}
