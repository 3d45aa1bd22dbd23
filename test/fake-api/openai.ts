import { splitEvenly, splitIntoDeltas } from './replies';
import { checkOpenAIImageCount, checkOpenAIMediaPart, imageRoleFailure, textOnlyStyle, type OpenAIMediaContext, type TextOnlyStyle } from './openaiMedia';
import { canonicalJson, countTokens, tokenize, truncateToTokens } from './tokens';
import type { ApiFailure, ReplySpec } from './types';

// Wire rules of the OpenAI Chat Completions API. Error texts are the real API's where they
// could be confirmed; see server.ts.

const ROLES = ['system', 'assistant', 'user', 'function', 'tool', 'developer'];
/**
 * `reasoning_effort` as OpenAI's API reference listed it on 2026-11-29 ("Currently supported
 * values are none, minimal, low, medium, high, xhigh, and max"; the GPT-6 family's newest
 * models drop none and minimal). Not every model takes every value; the fake takes them all.
 */
export const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];
/** Reasoning tokens a reply spends at each effort when its script gives no reasoning of its own. */
export const REASONING_TOKENS: Record<string, number> = { none: 0, minimal: 16, low: 64, medium: 192, high: 512, xhigh: 1024, max: 2048 };
export const TOOL_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
// Stand-ins for the chat template's control tokens, outside o200k's text vocabulary.
export const IM_START = 200264;
export const IM_END = 200265;
export const IM_SEP = 200266;
export const TOOL_DEFINITION = 200267;
export const IMAGE = 200268;

type Json = Record<string, unknown>;

export interface OpenAIRequest {
  body: Json;
  model: string;
  /** `max_completion_tokens`, else the older `max_tokens`, else null. */
  maxTokens: number | null;
  stream: boolean;
  includeUsage: boolean;
  includeObfuscation: boolean;
  /** The prompt as the model sees it, including the template's framing tokens. */
  tokens: number[];
  inputTokens: number;
  systemText: string;
  lastUserText: string;
  answersToolResults: boolean;
  toolNames: string[];
  /** The tools the model may call: none when `tool_choice` is `"none"`. */
  callableTools: string[];
  messageCount: number;
  /** `reasoning_effort`, or null when the request does not set it. */
  reasoningEffort: string | null;
}

export type OpenAICheck = { ok: true; request: OpenAIRequest } | { ok: false; failure: ApiFailure };

export function invalid(message: string, param: string | null = null, code: string | null = null): { ok: false; failure: ApiFailure } {
  return { ok: false, failure: { status: 400, type: 'invalid_request_error', message, param, code } };
}

/** The answer to a body that is not a JSON object. */
export function notJson(): { ok: false; failure: ApiFailure } {
  return invalid(
    "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. " +
      'The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)',
  );
}

export function emptyArray(path: string): { ok: false; failure: ApiFailure } {
  return invalid(`Invalid '${path}': empty array. Expected an array with minimum length 1, but got an empty array instead.`, path, 'empty_array');
}

export function missing(path: string): { ok: false; failure: ApiFailure } {
  return invalid(`Missing required parameter: '${path}'.`, path, 'missing_required_parameter');
}

export function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .filter(isRecord)
      .filter((part) => part.type === 'text')
      .map((part) => String(part.text ?? ''))
      .join('\n');
  }
  return '';
}

/** The prompt's tokens for a message's content; images and PDFs count what the documented formulas price them at. */
function contentTokens(content: unknown, media: WeakMap<Json, number>): number[] {
  if (typeof content === 'string') return tokenize(content);
  if (!Array.isArray(content)) return [];
  return content.filter(isRecord).flatMap((part) => {
    if (part.type === 'text') return tokenize(String(part.text ?? ''));
    const priced = media.get(part);
    if (priced !== undefined) return new Array<number>(priced).fill(IMAGE);
    return tokenize(canonicalJson(part));
  });
}

/** `null` when the content parts are well-formed for the role, else the failure. */
function checkContentParts(parts: unknown[], index: number, role: string, media: OpenAIMediaContext): { ok: false; failure: ApiFailure } | null {
  const allowed = role === 'user' ? ['text', 'image_url', 'input_audio', 'file'] : role === 'assistant' ? ['text', 'refusal'] : ['text'];
  for (const [j, part] of parts.entries()) {
    const path = `messages[${index}].content[${j}]`;
    if (!isRecord(part)) return invalid(`Invalid type for '${path}': expected an object, but got ${typeName(part)} instead.`, path, 'invalid_type');
    if (part.type === 'image_url' && role !== 'user') return { ok: false, failure: imageRoleFailure(index, role) };
    if (role === 'user' && (part.type === 'image_url' || part.type === 'file')) {
      const failure = checkOpenAIMediaPart(part, index, j, media);
      if (failure) return { ok: false, failure };
      continue;
    }
    if (!allowed.includes(String(part.type))) {
      const supported = allowed.map((name) => `'${name}'`).join(', ');
      return invalid(`Invalid value: '${String(part.type)}'. Supported values are: ${supported}.`, `${path}.type`, 'invalid_value');
    }
    if (part.type === 'text' && typeof part.text !== 'string') return missing(`${path}.text`);
  }
  return null;
}

/**
 * Checks a Chat Completions body against the documented rules and counts its prompt tokens.
 * Rules are checked in request order, and the first violation is reported.
 */
export function checkOpenAIRequest(raw: unknown, textOnlyModels: Readonly<Record<string, TextOnlyStyle>> = {}): OpenAICheck {
  if (!isRecord(raw)) return notJson();
  const body = raw;
  if (typeof body.model !== 'string' || body.model === '') return invalid('you must provide a model parameter');
  if (body.messages === undefined) return missing('messages');
  if (!Array.isArray(body.messages)) {
    return invalid(`Invalid type for 'messages': expected an array of objects, but got ${typeName(body.messages)} instead.`, 'messages', 'invalid_type');
  }
  const messages: unknown[] = body.messages;
  if (messages.length === 0) return emptyArray('messages');
  const media: OpenAIMediaContext = { model: body.model, textOnly: textOnlyStyle(body.model, textOnlyModels), tokens: new WeakMap(), images: 0 };

  let maxTokens: number | null = null;
  for (const field of ['max_completion_tokens', 'max_tokens'] as const) {
    const value = body[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isInteger(value)) {
      return invalid(`Invalid type for '${field}': expected an integer, but got ${typeName(value)} instead.`, field, 'invalid_type');
    }
    if (value < 1) {
      return invalid(`Invalid '${field}': integer below minimum value. Expected a value >= 1, but got ${value} instead.`, field, 'integer_below_min_value');
    }
    maxTokens ??= value;
  }
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') {
    return invalid(`Invalid type for 'stream': expected a boolean, but got ${typeName(body.stream)} instead.`, 'stream', 'invalid_type');
  }
  const stream = body.stream === true;
  if (body.stream_options !== undefined && body.stream_options !== null && !stream) {
    return invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options', null);
  }
  const streamOptions = isRecord(body.stream_options) ? body.stream_options : {};
  const effort = body.reasoning_effort;
  if (effort !== undefined && effort !== null && (typeof effort !== 'string' || !REASONING_EFFORTS.includes(effort))) {
    const supported = REASONING_EFFORTS.map((value) => `'${value}'`);
    return invalid(
      `Invalid value: '${String(effort)}'. Supported values are: ${supported.slice(0, -1).join(', ')}, and ${supported.at(-1)}.`,
      'reasoning_effort',
      'invalid_value',
    );
  }

  const tokens: number[] = [];
  const toolNames: string[] = [];
  if (body.tools !== undefined && body.tools !== null) {
    if (!Array.isArray(body.tools))
      return invalid(`Invalid type for 'tools': expected an array of objects, but got ${typeName(body.tools)} instead.`, 'tools', 'invalid_type');
    for (const [k, tool] of (body.tools as unknown[]).entries()) {
      if (!isRecord(tool) || !isRecord(tool.function)) return missing(`tools[${k}].function`);
      const name = tool.function.name;
      if (typeof name !== 'string') return missing(`tools[${k}].function.name`);
      if (!TOOL_NAME_PATTERN.test(name)) {
        return invalid(
          `Invalid 'tools[${k}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
          `tools[${k}].function.name`,
          'invalid_value',
        );
      }
      toolNames.push(name);
      tokens.push(TOOL_DEFINITION, ...tokenize(canonicalJson(tool.function)));
    }
  }

  const systemTexts: string[] = [];
  let lastUserText = '';
  // The assistant message whose tool_calls are being answered, while tool messages follow it.
  let open: { index: number; ids: string[]; answered: Set<string> } | null = null;
  const unanswered = () =>
    open && open.ids.some((id) => !open!.answered.has(id))
      ? invalid(
          "An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. " +
            `The following tool_call_ids did not have response messages: ${open.ids.filter((id) => !open!.answered.has(id)).join(', ')}`,
          `messages.[${open.index}].role`,
          null,
        )
      : null;

  for (const [i, message] of messages.entries()) {
    if (!isRecord(message)) {
      return invalid(`Invalid type for 'messages[${i}]': expected an object, but got ${typeName(message)} instead.`, `messages[${i}]`, 'invalid_type');
    }
    const role = message.role;
    if (role === undefined) return missing(`messages[${i}].role`);
    if (typeof role !== 'string' || !ROLES.includes(role)) {
      return invalid(
        `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`,
        `messages[${i}].role`,
        'invalid_value',
      );
    }

    const content = message.content;
    if (role === 'assistant') {
      const toolCalls = message.tool_calls;
      if (toolCalls !== undefined && toolCalls !== null) {
        if (!Array.isArray(toolCalls))
          return invalid(
            `Invalid type for 'messages[${i}].tool_calls': expected an array of objects, but got ${typeName(toolCalls)} instead.`,
            `messages[${i}].tool_calls`,
            'invalid_type',
          );
        if (toolCalls.length === 0) return emptyArray(`messages[${i}].tool_calls`);
        for (const [j, call] of (toolCalls as unknown[]).entries()) {
          const path = `messages[${i}].tool_calls[${j}]`;
          if (!isRecord(call)) return invalid(`Invalid type for '${path}': expected an object, but got ${typeName(call)} instead.`, path, 'invalid_type');
          if (typeof call.id !== 'string') return missing(`${path}.id`);
          if (call.type !== 'function') return missing(`${path}.type`);
          if (!isRecord(call.function) || typeof call.function.name !== 'string') return missing(`${path}.function.name`);
          if (typeof call.function.arguments !== 'string') {
            return invalid(
              `Invalid type for '${path}.function.arguments': expected a string, but got ${typeName(call.function.arguments)} instead.`,
              `${path}.function.arguments`,
              'invalid_type',
            );
          }
        }
      } else if (content === undefined || content === null) {
        return invalid("Invalid value for 'content': expected a string, got null.", `messages.[${i}].content`, null);
      }
      if (Array.isArray(content)) {
        if (content.length === 0) return emptyArray(`messages[${i}].content`);
        const problem = checkContentParts(content, i, role, media);
        if (problem) return problem;
      }
    } else if (role !== 'function') {
      if (content === undefined || content === null) return missing(`messages[${i}].content`);
      if (Array.isArray(content)) {
        if (content.length === 0) return emptyArray(`messages[${i}].content`);
        const problem = checkContentParts(content, i, role, media);
        if (problem) return problem;
      } else if (typeof content !== 'string') {
        return invalid(
          `Invalid type for 'messages[${i}].content': expected one of a string or array of objects, but got ${typeName(content)} instead.`,
          `messages[${i}].content`,
          'invalid_type',
        );
      }
    }

    if (role === 'tool') {
      if (typeof message.tool_call_id !== 'string') return missing(`messages[${i}].tool_call_id`);
      if (!open) {
        return invalid(
          "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
          `messages.[${i}].role`,
          null,
        );
      }
      if (!open.ids.includes(message.tool_call_id)) {
        return invalid(
          `Invalid parameter: 'tool_call_id' of '${message.tool_call_id}' not found in 'tool_calls' of previous message.`,
          `messages.[${i}].tool_call_id`,
          null,
        );
      }
      open.answered.add(message.tool_call_id);
    } else {
      const problem = unanswered();
      if (problem) return problem;
      open = null;
      if (role === 'assistant' && Array.isArray(message.tool_calls)) {
        open = { index: i, ids: (message.tool_calls as Json[]).map((call) => call.id as string), answered: new Set() };
      }
    }

    if (role === 'system' || role === 'developer') systemTexts.push(contentText(content));
    if (role === 'user') lastUserText = contentText(content);

    tokens.push(IM_START, ...tokenize(role));
    if (typeof message.name === 'string') tokens.push(...tokenize(message.name));
    tokens.push(IM_SEP);
    // Not spread into push: a request of many images is more tokens than the call stack takes arguments.
    for (const token of contentTokens(content, media.tokens)) tokens.push(token);
    if (Array.isArray(message.tool_calls)) {
      for (const call of message.tool_calls as Json[]) {
        const fn = call.function as Json;
        tokens.push(...tokenize(String(fn.name)), IM_SEP, ...tokenize(String(fn.arguments)), IM_SEP);
      }
    }
    tokens.push(IM_END);
  }
  const problem = unanswered();
  if (problem) return problem;
  const tooMany = checkOpenAIImageCount(media);
  if (tooMany) return { ok: false, failure: tooMany };
  // Every reply is primed with the assistant's header.
  tokens.push(IM_START, ...tokenize('assistant'), IM_SEP);

  const last = messages.at(-1) as Json;
  return {
    ok: true,
    request: {
      body,
      model: body.model,
      maxTokens,
      stream,
      includeUsage: streamOptions.include_usage === true,
      includeObfuscation: streamOptions.include_obfuscation !== false,
      tokens,
      inputTokens: tokens.length,
      systemText: systemTexts.join('\n'),
      lastUserText,
      answersToolResults: last.role === 'tool',
      toolNames,
      callableTools: body.tool_choice === 'none' ? [] : toolNames,
      messageCount: messages.length,
      reasoningEffort: typeof effort === 'string' ? effort : null,
    },
  };
}

export function openAIErrorBody(failure: ApiFailure): Json {
  if (failure.body) return failure.body;
  return { error: { message: failure.message, type: failure.type, param: failure.param ?? null, code: failure.code ?? null } };
}

export interface OpenAIChunk {
  data: Json;
  pause: boolean;
  /** Assistant text this chunk adds (for recording what a cut stream had shown). */
  text?: string;
}

export interface OpenAIAnswer {
  completion: Json;
  chunks: OpenAIChunk[];
  text: string;
  usage: Json;
}

export interface OpenAIIds {
  completion: string;
  toolCall: () => string;
}

/**
 * The answer to an accepted request: the ChatCompletion (non-streaming body) and the chunks a
 * stream sends for it, usage last when `stream_options.include_usage` is set.
 */
export function buildOpenAIAnswer(request: OpenAIRequest, reply: ReplySpec, cachedTokens: number, ids: OpenAIIds, createdSeconds: number): OpenAIAnswer {
  const limit = request.maxTokens ?? Number.POSITIVE_INFINITY;
  let finishReason = 'stop';
  let text = reply.text ?? '';
  if (countTokens(text) > limit) {
    text = truncateToTokens(text, limit);
    finishReason = 'length';
  }
  const toolCalls =
    finishReason === 'length' || request.callableTools.length === 0
      ? []
      : (reply.toolCalls ?? []).map((call) => ({
          id: call.id ?? ids.toolCall(),
          type: 'function',
          function: { name: call.name, arguments: JSON.stringify(call.input) },
        }));
  if (toolCalls.length > 0) finishReason = 'tool_calls';

  const visibleTokens = Math.min(
    limit,
    countTokens(text) + toolCalls.reduce((sum, call) => sum + 3 + countTokens(call.function.name) + countTokens(call.function.arguments), 0),
  );
  // Reasoning is billed inside completion_tokens and never shown: a script's thinking sets how much.
  const effort = request.reasoningEffort;
  const reasoning = effort === null || effort === 'none' ? 0 : reply.thinking ? countTokens(reply.thinking) : (REASONING_TOKENS[effort] ?? 0);
  const reasoningTokens = Math.min(reasoning, limit - visibleTokens);
  const completionTokens = visibleTokens + reasoningTokens;
  const usage: Json = {
    prompt_tokens: request.inputTokens,
    completion_tokens: completionTokens,
    total_tokens: request.inputTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: cachedTokens, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reasoningTokens, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
  };
  const envelope = { id: ids.completion, created: createdSeconds, model: request.model, service_tier: 'default', system_fingerprint: 'fp_fakeapi01' };
  const completion: Json = {
    ...envelope,
    object: 'chat.completion',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: text === '' && toolCalls.length > 0 ? null : text,
          refusal: null,
          annotations: [],
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: finishReason,
      },
    ],
    usage,
  };

  let obfuscationCounter = 0;
  const chunk = (choices: Json[], pause: boolean, extra: Json = {}, piece?: string): OpenAIChunk => {
    const data: Json = { ...envelope, object: 'chat.completion.chunk', choices, ...extra };
    if (request.includeUsage && !('usage' in extra)) data.usage = null;
    // The real API pads chunks with random characters against length side channels; a counter will do here.
    if (request.includeObfuscation) data.obfuscation = `pad${(obfuscationCounter += 1)}`;
    return { data, pause, text: piece };
  };
  const choice = (delta: Json, finish: string | null = null): Json => ({ index: 0, delta, logprobs: null, finish_reason: finish });

  const chunks: OpenAIChunk[] = [];
  chunks.push(chunk([choice({ role: 'assistant', content: text === '' && toolCalls.length > 0 ? null : '', refusal: null })], false));
  for (const piece of splitIntoDeltas(text, reply.deltas)) chunks.push(chunk([choice({ content: piece })], true, {}, piece));
  for (const [index, call] of toolCalls.entries()) {
    chunks.push(chunk([choice({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] })], true));
    for (const piece of splitEvenly(call.function.arguments, 3)) {
      chunks.push(chunk([choice({ tool_calls: [{ index, function: { arguments: piece } }] })], true));
    }
  }
  chunks.push(chunk([choice({}, finishReason)], false));
  if (request.includeUsage) chunks.push(chunk([], false, { usage }));

  return { completion, chunks, text, usage };
}
