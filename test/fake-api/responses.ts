import { emptyArray, IM_END, notJson, IM_SEP, IM_START, IMAGE, invalid, isRecord, missing, TOOL_DEFINITION, TOOL_NAME_PATTERN, typeName } from './openai';
import { checkOpenAIImageCount, checkOpenAIMediaPart, imageRoleFailure, textOnlyStyle, type OpenAIMediaContext, type TextOnlyStyle } from './openaiMedia';
import { checkReasoningEffort, neverReasons, REASONING_INPUT_REFUSED } from './openaiReasoning';
import { openOpenAISummary } from './compaction';
import { openReasoning } from './responsesAnswer';
import { canonicalJson, tokenize } from './tokens';
import type { ResponsesRequest } from './responsesRequest';
import type { ApiFailure } from './types';

// Wire rules of OpenAI's Responses API (`POST /v1/responses`), read on 2026-11-29 in:
// - the streaming events reference, https://developers.openai.com/api/reference/resources/responses/streaming-events
//   (event names and order, `sequence_number`, the `error` event);
// - the `reasoning.effort` reference text of the API's OpenAPI description (see openaiReasoning.ts),
//   and the SDK's types (openai 7.57, resources/responses/responses.d.ts) for every shape;
// - the OpenAI Cookbook's reasoning-items notebook (github.com/openai/openai-cookbook), for
//   reasoning items of earlier turns being dropped from the prompt.
// The error texts are the real API's as public reports quote them (read the same day):
// "No tool call found for function call output with call_id …" (continuedev/continue#10092),
// "No tool output found for function call …" (tjardoo/openai-client#124), both param `input`;
// "Item with id 'rs_…' not found. Items are not persisted when `store` is set to false. …", a 404
// (vercel/ai#7543, can1357/oh-my-pi#41); "The encrypted content gAAA...DQ== could not be
// verified.", code `invalid_encrypted_content` (openai/codex#8145); "Item 'rs_…' of type
// 'reasoning' was provided without its required following item." (continuedev/continue#8933);
// "Missing required parameter: 'tools[0].name'." for a Chat Completions shaped tool (quoted in
// several public clients); "Invalid 'max_output_tokens': integer below minimum value. Expected a
// value >= 16, …" (vectorize-io/hindsight#58); "Your input exceeds the context window of this
// model. Please adjust your input and try again.", code `context_length_exceeded`, param `input`,
// and in a stream as an `error` event with `sequence_number` 2 (anomalyco/opencode#6071,
// dyad-sh/dyad#1672). Other texts follow the API's generic patterns (missing parameter, invalid
// type, invalid value); the previous_response_id 404 is not confirmed.

type Json = Record<string, unknown>;
type Failed = { ok: false; failure: ApiFailure };

const ROLES = ['user', 'assistant', 'system', 'developer'];
const INPUT_PARTS = ['input_text', 'input_image', 'input_file'];
const ASSISTANT_PARTS = ['output_text', 'refusal'];
const ITEM_TYPES = ['message', 'function_call', 'function_call_output', 'reasoning', 'item_reference', 'compaction'];
const SUMMARIES = ['auto', 'concise', 'detailed'];
const INCLUDABLE = [
  'file_search_call.results',
  'web_search_call.results',
  'web_search_call.action.sources',
  'message.input_image.image_url',
  'computer_call_output.output.image_url',
  'code_interpreter_call.outputs',
  'reasoning.encrypted_content',
  'message.output_text.logprobs',
];
export const MIN_OUTPUT_TOKENS = 16;

export type ResponsesCheck = { ok: true; request: ResponsesRequest } | Failed;

/** What the fake knows of reasoning items it issued with `store` on: their hidden reasoning tokens. */
export type StoredReasoning = (id: string) => number | undefined;

function badType(path: string, expected: string, value: unknown): Failed {
  return invalid(`Invalid type for '${path}': expected ${expected}, but got ${typeName(value)} instead.`, path, 'invalid_type');
}

function badValue(path: string, value: unknown, supported: readonly string[]): Failed {
  const list = supported.map((name) => `'${name}'`);
  const text = list.length <= 2 ? list.join(' and ') : `${list.slice(0, -1).join(', ')}, and ${list.at(-1)}`;
  return invalid(`Invalid value: '${String(value)}'. Supported values are: ${text}.`, path, 'invalid_value');
}

/** The first and last four characters, as the API shows an encrypted content it refuses. */
function abbreviated(text: string): string {
  return text.length <= 8 ? text : `${text.slice(0, 4)}...${text.slice(-4)}`;
}

/** Content parts as Chat Completions spells them, so its media checks and pricing apply. */
function asChatPart(part: Json): Json {
  if (part.type === 'input_image') {
    // An uploaded image the fake never saw is priced like an https one, whose size it cannot read.
    const url = typeof part.image_url === 'string' ? part.image_url : `https://files.invalid/${String(part.file_id)}`;
    return { type: 'image_url', image_url: { url, detail: part.detail ?? 'auto' } };
  }
  if (part.type === 'input_file') return { type: 'file', file: { file_id: part.file_id, file_data: part.file_data, filename: part.filename } };
  return part;
}

/** Checks a message's or a tool output's content and appends its tokens; null when valid. */
function checkContent(content: unknown, path: string, index: number, role: string, media: OpenAIMediaContext, tokens: number[]): Failed | null {
  if (typeof content === 'string') {
    for (const token of tokenize(content)) tokens.push(token);
    return null;
  }
  if (!Array.isArray(content)) return badType(path, 'one of a string or array of objects', content);
  if (content.length === 0) return emptyArray(path);
  const allowed = role === 'assistant' ? ASSISTANT_PARTS : INPUT_PARTS;
  for (const [j, part] of content.entries()) {
    const partPath = `${path}[${j}]`;
    if (!isRecord(part)) return badType(partPath, 'an object', part);
    if (part.type === 'input_image' && role === 'assistant') return { ok: false, failure: imageRoleFailure(index, role) };
    if (!allowed.includes(String(part.type))) return badValue(`${partPath}.type`, part.type, allowed);
    if (part.type === 'input_image' || part.type === 'input_file') {
      if (part.type === 'input_image' && typeof part.image_url !== 'string' && typeof part.file_id !== 'string') return missing(`${partPath}.image_url`);
      const chat = asChatPart(part);
      const failure = checkOpenAIMediaPart(chat, index, j, media, 'input');
      if (failure) return { ok: false, failure };
      for (let k = media.tokens.get(chat) ?? 0; k > 0; k--) tokens.push(IMAGE);
      continue;
    }
    const text = part.type === 'refusal' ? part.refusal : part.text;
    if (typeof text !== 'string') return missing(`${partPath}.${part.type === 'refusal' ? 'refusal' : 'text'}`);
    for (const token of tokenize(text)) tokens.push(token);
  }
  return null;
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isRecord)
    .filter((part) => part.type === 'input_text' || part.type === 'output_text')
    .map((part) => String(part.text ?? ''))
    .join('\n');
}

/** The top-level parameters other than `input` and `tools`; null when valid. */
function checkParameters(body: Json): Failed | null {
  if (body.instructions !== undefined && body.instructions !== null && typeof body.instructions !== 'string') {
    return badType('instructions', 'a string', body.instructions);
  }
  const max = body.max_output_tokens;
  if (max !== undefined && max !== null) {
    if (typeof max !== 'number' || !Number.isInteger(max)) return badType('max_output_tokens', 'an integer', max);
    if (max < MIN_OUTPUT_TOKENS) {
      return invalid(
        `Invalid 'max_output_tokens': integer below minimum value. Expected a value >= ${MIN_OUTPUT_TOKENS}, but got ${max} instead.`,
        'max_output_tokens',
        'integer_below_min_value',
      );
    }
  }
  for (const flag of ['stream', 'store'] as const) {
    if (body[flag] !== undefined && body[flag] !== null && typeof body[flag] !== 'boolean') return badType(flag, 'a boolean', body[flag]);
  }
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
    return invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options', null);
  }
  if (body.include !== undefined && body.include !== null) {
    if (!Array.isArray(body.include)) return badType('include', 'an array of strings', body.include);
    for (const [k, value] of (body.include as unknown[]).entries()) {
      if (typeof value !== 'string' || !INCLUDABLE.includes(value)) return badValue(`include[${k}]`, value, INCLUDABLE);
    }
  }
  if (body.reasoning !== undefined && body.reasoning !== null) {
    if (!isRecord(body.reasoning)) return badType('reasoning', 'an object', body.reasoning);
    const summary = body.reasoning.summary;
    if (summary !== undefined && summary !== null && (typeof summary !== 'string' || !SUMMARIES.includes(summary))) {
      return badValue('reasoning.summary', summary, SUMMARIES);
    }
  }
  if (typeof body.previous_response_id === 'string') {
    // The fake keeps no conversations: a previous response is never found, as with `store: false`.
    return {
      ok: false,
      failure: {
        status: 404,
        type: 'invalid_request_error',
        message: `Previous response with id '${body.previous_response_id}' not found.`,
        param: 'previous_response_id',
        code: 'previous_response_not_found',
      },
    };
  }
  return null;
}

/** Function tools in the Responses shape (`name` at the top, not under `function`); appends their tokens. */
function checkTools(raw: unknown, tokens: number[]): { tools: Json[]; names: string[] } | Failed {
  const tools: Json[] = [];
  const names: string[] = [];
  if (raw === undefined || raw === null) return { tools, names };
  if (!Array.isArray(raw)) return badType('tools', 'an array of objects', raw);
  for (const [k, tool] of (raw as unknown[]).entries()) {
    if (!isRecord(tool)) return badType(`tools[${k}]`, 'an object', tool);
    if (tool.type === undefined) return missing(`tools[${k}].type`);
    if (tool.type !== 'function') continue; // Hosted tools (web search and the like) are taken as they are.
    if (typeof tool.name !== 'string') return missing(`tools[${k}].name`);
    if (!TOOL_NAME_PATTERN.test(tool.name)) {
      return invalid(
        `Invalid 'tools[${k}].name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`,
        `tools[${k}].name`,
        'invalid_value',
      );
    }
    names.push(tool.name);
    tools.push(tool);
    // Counted as the Chat Completions path counts `tool.function`, so both APIs price a tool alike.
    const { name, description, parameters, strict } = tool;
    tokens.push(TOOL_DEFINITION, ...tokenize(canonicalJson({ name, description, parameters, strict })));
  }
  return { tools, names };
}

/**
 * Checks a Responses body against the documented rules and counts its input tokens with the same
 * framing as Chat Completions (`instructions` as a system message first). Reasoning items count
 * their hidden reasoning tokens when they follow the last user message; earlier ones are dropped,
 * as the reasoning guide says the API does. `storedReasoning` answers for items sent back by id.
 */
export function checkResponsesRequest(raw: unknown, textOnlyModels: Readonly<Record<string, TextOnlyStyle>>, storedReasoning: StoredReasoning): ResponsesCheck {
  if (!isRecord(raw)) return notJson();
  const body = raw;
  if (typeof body.model !== 'string' || body.model === '') return missing('model');
  const model = body.model;
  if (body.input === undefined || body.input === null) return missing('input');
  if (typeof body.input !== 'string' && !Array.isArray(body.input)) return badType('input', 'one of a string or array of objects', body.input);
  if (Array.isArray(body.input) && body.input.length === 0) return emptyArray('input');
  const problem = checkParameters(body);
  if (problem) return problem;
  const reasoning = isRecord(body.reasoning) ? body.reasoning : {};
  const effort = checkReasoningEffort(model, reasoning.effort, 'reasoning.effort');
  if ('failure' in effort) return { ok: false, failure: effort.failure };
  const store = body.store !== false;

  const tokens: number[] = [];
  const tools = checkTools(body.tools, tokens);
  if ('ok' in tools) return tools;

  const items: unknown[] = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input;
  const media: OpenAIMediaContext = { model, textOnly: textOnlyStyle(model, textOnlyModels), tokens: new WeakMap(), images: 0 };
  const systemTexts: string[] = typeof body.instructions === 'string' && body.instructions !== '' ? [body.instructions] : [];
  if (systemTexts.length > 0) tokens.push(IM_START, ...tokenize('system'), IM_SEP, ...tokenize(systemTexts[0]!), IM_END);
  // Tools and instructions stay when a compaction item drops what came before it.
  const instructionTokens = tokens.length;
  let compactedFrom: string | undefined;
  const lastUser = items.findLastIndex((item) => isRecord(item) && item.role === 'user');
  let lastUserText = '';
  const calls = new Set<string>();
  /** Calls made since the last user message that no output has answered yet. */
  let pending: string[] = [];
  const unanswered = (): Failed | null => (pending.length > 0 ? invalid(`No tool output found for function call ${pending[0]}.`, 'input', null) : null);

  for (const [i, item] of items.entries()) {
    const path = `input[${i}]`;
    if (!isRecord(item)) return badType(path, 'an object', item);
    const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
    if (type === undefined) return missing(`${path}.type`);
    if (!ITEM_TYPES.includes(String(type))) return badValue(`${path}.type`, type, ITEM_TYPES);

    if (type === 'message') {
      const role = item.role;
      if (role === undefined) return missing(`${path}.role`);
      if (typeof role !== 'string' || !ROLES.includes(role)) return badValue(`${path}.role`, role, ROLES);
      if (item.content === undefined || item.content === null) return missing(`${path}.content`);
      if (role === 'user') {
        const open = unanswered();
        if (open) return open;
        pending = [];
      }
      tokens.push(IM_START, ...tokenize(role), IM_SEP);
      const failed = checkContent(item.content, `${path}.content`, i, role, media, tokens);
      if (failed) return failed;
      tokens.push(IM_END);
      if (role === 'system' || role === 'developer') systemTexts.push(textOf(item.content));
      if (role === 'user') lastUserText = textOf(item.content);
    } else if (type === 'function_call') {
      if (typeof item.call_id !== 'string') return missing(`${path}.call_id`);
      if (typeof item.name !== 'string') return missing(`${path}.name`);
      if (typeof item.arguments !== 'string') return badType(`${path}.arguments`, 'a string', item.arguments);
      calls.add(item.call_id);
      pending.push(item.call_id);
      tokens.push(IM_START, ...tokenize('assistant'), IM_SEP, ...tokenize(item.name), IM_SEP, ...tokenize(item.arguments), IM_SEP, IM_END);
    } else if (type === 'function_call_output') {
      if (typeof item.call_id !== 'string') return missing(`${path}.call_id`);
      if (!calls.has(item.call_id)) return invalid(`No tool call found for function call output with call_id ${item.call_id}.`, 'input', null);
      if (item.output === undefined || item.output === null) return missing(`${path}.output`);
      pending = pending.filter((id) => id !== item.call_id);
      tokens.push(IM_START, ...tokenize('tool'), IM_SEP);
      const failed = checkContent(item.output, `${path}.output`, i, 'tool', media, tokens);
      if (failed) return failed;
      tokens.push(IM_END);
    } else if (type === 'compaction') {
      // It stands for everything before it: the model reads the summary it carries, sealed.
      if (typeof item.encrypted_content !== 'string') return missing(`${path}.encrypted_content`);
      const summary = openOpenAISummary(item.encrypted_content);
      if (summary === null)
        return invalid(`The encrypted content ${abbreviated(item.encrypted_content)} could not be verified.`, null, 'invalid_encrypted_content');
      tokens.length = instructionTokens;
      pending = [];
      tokens.push(IM_START, ...tokenize(summary), IM_END);
      compactedFrom = summary;
    } else if (type === 'reasoning') {
      if (neverReasons(model)) return invalid(REASONING_INPUT_REFUSED, 'input', null);
      const hidden = checkReasoningItem(item, path, items[i + 1], store, storedReasoning);
      if (typeof hidden !== 'number') return hidden;
      if (i > lastUser) for (let k = hidden; k > 0; k--) tokens.push(IMAGE);
    } else {
      return invalid(`Item with id '${String(item.id)}' not found.`, 'input', null);
    }
  }
  const open = unanswered();
  if (open) return open;
  const tooMany = checkOpenAIImageCount(media);
  if (tooMany) return { ok: false, failure: tooMany };
  tokens.push(IM_START, ...tokenize('assistant'), IM_SEP);

  const include = Array.isArray(body.include) ? (body.include as string[]) : [];
  const last = items.at(-1) as Json;
  return {
    ok: true,
    request: {
      body,
      model,
      instructions: typeof body.instructions === 'string' ? body.instructions : null,
      maxTokens: typeof body.max_output_tokens === 'number' ? body.max_output_tokens : null,
      stream: body.stream === true,
      store,
      effort: effort.effort,
      summary: typeof reasoning.summary === 'string' ? reasoning.summary : null,
      includeEncrypted: include.includes('reasoning.encrypted_content'),
      tokens,
      fixedTokens: instructionTokens,
      inputTokens: tokens.length,
      systemText: systemTexts.join('\n'),
      lastUserText,
      answersToolResults: last.type === 'function_call_output',
      tools: tools.tools,
      toolNames: tools.names,
      callableTools: body.tool_choice === 'none' ? [] : tools.names,
      messageCount: items.length,
      ...(compactedFrom === undefined ? {} : { compactedFrom }),
    },
  };
}

/** A reasoning item sent back: its hidden reasoning tokens, or the failure. */
function checkReasoningItem(item: Json, path: string, next: unknown, store: boolean, storedReasoning: StoredReasoning): number | Failed {
  if (typeof item.id !== 'string') return missing(`${path}.id`);
  if (!Array.isArray(item.summary)) return item.summary === undefined ? missing(`${path}.summary`) : badType(`${path}.summary`, 'an array', item.summary);
  for (const [k, part] of (item.summary as unknown[]).entries()) {
    if (!isRecord(part) || part.type !== 'summary_text' || typeof part.text !== 'string') return missing(`${path}.summary[${k}].text`);
  }
  const follows = isRecord(next) && (next.type === 'function_call' || ((next.type ?? 'message') === 'message' && next.role === 'assistant'));
  if (!follows) return invalid(`Item '${item.id}' of type 'reasoning' was provided without its required following item.`, 'input', null);
  const encrypted = item.encrypted_content;
  if (typeof encrypted === 'string') {
    const hidden = openReasoning(encrypted);
    if (hidden === null) return invalid(`The encrypted content ${abbreviated(encrypted)} could not be verified.`, null, 'invalid_encrypted_content');
    return hidden;
  }
  const stored = store ? storedReasoning(item.id) : undefined;
  if (stored !== undefined) return stored;
  return {
    ok: false,
    failure: {
      status: 404,
      type: 'invalid_request_error',
      message: store
        ? `Item with id '${item.id}' not found.`
        : `Item with id '${item.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`,
      param: 'input',
      code: null,
    },
  };
}

/** What the model reads once it has compacted a Responses request: its tools and instructions, then the summary. */
export function compactedResponsesRequest(request: ResponsesRequest, summary: string): ResponsesRequest {
  const tokens = [...request.tokens.slice(0, request.fixedTokens), IM_START, ...tokenize(summary), IM_END, IM_START, ...tokenize('assistant'), IM_SEP];
  return { ...request, tokens, inputTokens: tokens.length };
}
