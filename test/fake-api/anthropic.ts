import { anthropicStreamEvents, anthropicUsage, badToolName, isToolName } from '../../src/providers/demo/messagesWire';
import type { AnthropicCacheOutcome, AnthropicEvent } from '../../src/providers/demo/messagesWire';
import { checkAnthropicMedia, checkMediaTally, emptyTally } from './anthropicMedia';
import type { CacheUnit } from '../../src/providers/demo/promptCache';
import { boundElsewhere, PREFIX_CHECKED_MODELS, prefixHash } from './preservedThinking';
import { prefixOfSignature, splitEvenly, splitIntoDeltas, thinkingOfSignature, thinkingSignature } from './replies';
import { checkThinkingRules, type ThinkingOutcome } from './thinkingRules';
import { canonicalJson, countTokens, truncateToTokens } from './tokens';
import type { ApiFailure, ReplySpec } from './types';

// Wire rules of the Anthropic Messages API (version 2023-06-01 and 2026-10-21, which SDK 1.x
// sends). Messages are the real API's where they could be confirmed; see server.ts.

export const ANTHROPIC_VERSIONS = new Set(['2023-06-01', '2026-10-21']);
const MAX_CACHE_BREAKPOINTS = 4;
/** Token cost of one message's role framing; tools and a system prompt cost the same framing. */
const FRAMING_TOKENS = 3;
const TOOL_ID_PATTERN = /^[a-zA-Z0-9_-]+$/;
const KNOWN_BLOCK_TYPES = new Set([
  'text',
  'image',
  'document',
  'search_result',
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'server_tool_use',
  'web_search_tool_result',
  'web_fetch_tool_result',
  'compaction',
]);

type Json = Record<string, unknown>;

/** A request that passed the wire rules, with what the rest of the fake needs from it. */
export interface AnthropicRequest {
  body: Json;
  model: string;
  maxTokens: number | null;
  stream: boolean;
  units: CacheUnit[];
  inputTokens: number;
  systemText: string;
  lastUserText: string;
  answersToolResults: boolean;
  toolNames: string[];
  /** The tools the model may call: none when `tool_choice` is `none`. */
  callableTools: string[];
  messageCount: number;
  /** What `thinking` and `output_config.effort` come to for this model. */
  thinking: ThinkingOutcome;
}

export type AnthropicCheck = { ok: true; request: AnthropicRequest } | { ok: false; failure: ApiFailure };

function invalid(message: string): { ok: false; failure: ApiFailure } {
  return { ok: false, failure: { status: 400, type: 'invalid_request_error', message } };
}

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function withoutCacheControl(block: Json): Json {
  const { cache_control: _ignored, ...rest } = block;
  return rest;
}

/** `null` when the marker is well-formed, else the error message. */
function checkCacheControl(value: unknown, path: string): string | null {
  if (value === undefined || value === null) return null;
  if (!isRecord(value) || value.type !== 'ephemeral') return `${path}.cache_control.type: Input should be 'ephemeral'`;
  if (value.ttl !== undefined && value.ttl !== '5m' && value.ttl !== '1h') return `${path}.cache_control.ttl: Input should be '5m' or '1h'`;
  return null;
}

function ttlOf(value: unknown): '5m' | '1h' {
  return isRecord(value) && value.ttl === '1h' ? '1h' : '5m';
}

function blockText(block: Json): string {
  switch (block.type) {
    case 'text':
      return typeof block.text === 'string' ? block.text : '';
    case 'thinking':
      return typeof block.thinking === 'string' ? block.thinking : '';
    case 'redacted_thinking':
      return typeof block.data === 'string' ? block.data : '';
    case 'compaction':
      // The model reads the summary; the sealed field beside it is not text it counts.
      return typeof block.content === 'string' ? block.content : '';
    case 'tool_use':
    case 'server_tool_use':
      return `${String(block.name)} ${canonicalJson(block.input ?? {})}`;
    case 'tool_result': {
      const content = block.content;
      if (typeof content === 'string') return content;
      if (Array.isArray(content))
        return content
          .filter(isRecord)
          .filter((inner) => !isMedia(inner))
          .map(blockText)
          .join('\n');
      return '';
    }
    case 'document': {
      const source = block.source;
      return isRecord(source) && typeof source.data === 'string' && source.type === 'text' ? source.data : '';
    }
    default:
      return canonicalJson(withoutCacheControl(block));
  }
}

function isMedia(block: Json): boolean {
  return block.type === 'image' || block.type === 'document';
}

/**
 * Tokens one content block costs. Images and PDFs were priced when they were checked
 * (`media`), with the documented formulas: what the real API reports in `input_tokens`.
 */
function blockTokens(block: Json, media: WeakMap<Json, number>): number {
  const priced = media.get(block);
  if (priced !== undefined) return priced;
  const extra = block.type === 'tool_use' || block.type === 'tool_result' ? FRAMING_TOKENS : 0;
  const inner = block.type === 'tool_result' && Array.isArray(block.content) ? (block.content as unknown[]) : [];
  return countTokens(blockText(block)) + extra + inner.reduce<number>((sum, part) => sum + (isRecord(part) ? (media.get(part) ?? 0) : 0), 0);
}

function textCheck(text: string): string | null {
  if (text === '') return 'messages: text content blocks must be non-empty';
  if (text.trim() === '') return 'messages: text content blocks must contain non-whitespace text';
  return null;
}

interface Turn {
  role: string;
  /** Message indices merged into this turn (the API merges consecutive same-role messages). */
  indices: number[];
  blocks: Array<{ block: Json; message: number; index: number }>;
}

/**
 * Whether a model continues a final assistant message (prefill). Claude Opus and Sonnet 4.6
 * and every later model refuse it with the error above (the API's own message, as
 * reported for those models since February 2026); older models such as Haiku 4.5 take it.
 */
function supportsPrefill(model: string): boolean {
  const version = /^claude-[a-z]+-(\d+)(?:-(\d{1,2}))?(?:-|$)/.exec(model);
  if (!version) return true;
  const major = Number(version[1]);
  const minor = Number(version[2] ?? 0);
  return major < 4 || (major === 4 && minor < 6);
}

/** What the media rules need to know about the model a request names. */
export interface AnthropicModelFacts {
  /** The model's context window: under 1M tokens, 100 images and documents and 100 PDF pages at most. */
  contextWindow: number;
  /** Models that refuse PDFs. */
  noPdfModels: ReadonlySet<string>;
  /** How many thinking and redacted_thinking blocks the fake's own reply that made this tool call had; default none. */
  thinkingBlocksBefore?: (toolUseId: string) => number;
  /** The body is the server's context edit of a request already checked: thinking is not checked against its prefix again. */
  editedByServer?: boolean;
}

const DEFAULT_FACTS: AnthropicModelFacts = { contextWindow: 200_000, noPdfModels: new Set() };

/**
 * Checks a Messages API (or count_tokens) body against the documented rules and counts its
 * input tokens. Rules are checked in request order, and the first violation is reported.
 */
export function checkAnthropicRequest(raw: unknown, endpoint: 'messages' | 'count_tokens', facts: AnthropicModelFacts = DEFAULT_FACTS): AnthropicCheck {
  if (!isRecord(raw)) return invalid('Request body must be a JSON object.');
  const body = raw;

  if (body.model === undefined) return invalid('model: Field required');
  if (typeof body.model !== 'string') return invalid('model: Input should be a valid string');

  let maxTokens: number | null = null;
  if (endpoint === 'messages') {
    if (body.max_tokens === undefined) return invalid('max_tokens: Field required');
    if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens)) {
      return invalid('max_tokens: Input should be a valid integer');
    }
    // max_tokens 0 is valid since prompt-cache pre-warming: it writes the cache and generates nothing.
    if (body.max_tokens < 0) return invalid('max_tokens: Input should be greater than or equal to 0');
    maxTokens = body.max_tokens;
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean') return invalid('stream: Input should be a valid boolean');
  if (body.temperature !== undefined && (typeof body.temperature !== 'number' || body.temperature < 0 || body.temperature > 1)) {
    return invalid('temperature: Input should be less than or equal to 1');
  }

  if (body.messages === undefined) return invalid('messages: Field required');
  if (!Array.isArray(body.messages)) return invalid('messages: Input should be a valid list');
  const messages: unknown[] = body.messages;
  if (messages.length === 0) return invalid('messages: at least one message is required');

  const units: CacheUnit[] = [];
  let breakpoints = 0;

  // Tools come first in the prompt (and in the cache prefix).
  const toolNames: string[] = [];
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) return invalid('tools: Input should be a valid list');
    for (const [index, tool] of (body.tools as unknown[]).entries()) {
      if (!isRecord(tool)) return invalid(`tools.${index}: Input should be a valid dictionary`);
      const custom = tool.type === undefined || tool.type === 'custom';
      if (!isToolName(tool.name)) return invalid(badToolName(index));
      if (custom && !isRecord(tool.input_schema)) return invalid(`tools.${index}.custom.input_schema: Field required`);
      if (toolNames.includes(tool.name)) return invalid('tools: Tool names must be unique.');
      const cacheError = checkCacheControl(tool.cache_control, `tools.${index}`);
      if (cacheError) return invalid(cacheError);
      if (tool.cache_control) breakpoints += 1;
      toolNames.push(tool.name);
      units.push({
        tokens: FRAMING_TOKENS + countTokens(`${tool.name}\n${String(tool.description ?? '')}\n${canonicalJson(tool.input_schema ?? {})}`),
        material: canonicalJson({ tool: withoutCacheControl(tool) }),
        breakpoint: tool.cache_control ? { ttl: ttlOf(tool.cache_control) } : null,
      });
    }
  }

  if (body.tool_choice !== undefined) {
    const choice = body.tool_choice;
    if (!isRecord(choice) || !['auto', 'any', 'tool', 'none'].includes(String(choice.type))) {
      return invalid("tool_choice: Input tag found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'");
    }
    if (toolNames.length === 0) return invalid('tool_choice may only be specified while providing tools.');
    if (choice.type === 'tool' && (typeof choice.name !== 'string' || !toolNames.includes(choice.name))) {
      return invalid(`tool_choice.tool.name: Tool '${String(choice.name)}' not found in provided tools`);
    }
  }

  let systemText = '';
  if (body.system !== undefined && body.system !== null) {
    if (typeof body.system === 'string') {
      systemText = body.system;
      if (systemText !== '') {
        units.push({
          tokens: FRAMING_TOKENS + countTokens(systemText),
          material: canonicalJson({ system: [{ type: 'text', text: systemText }] }),
          breakpoint: null,
        });
      }
    } else if (Array.isArray(body.system)) {
      const texts: string[] = [];
      for (const [index, block] of (body.system as unknown[]).entries()) {
        if (!isRecord(block) || block.type !== 'text') return invalid(`system.${index}.type: Input should be 'text'`);
        if (typeof block.text !== 'string') return invalid(`system.${index}.text: Input should be a valid string`);
        if (block.text === '') return invalid('system: text content blocks must be non-empty');
        const cacheError = checkCacheControl(block.cache_control, `system.${index}`);
        if (cacheError) return invalid(cacheError);
        if (block.cache_control) breakpoints += 1;
        texts.push(block.text);
        units.push({
          tokens: (index === 0 ? FRAMING_TOKENS : 0) + countTokens(block.text),
          material: canonicalJson({ system: index, block: withoutCacheControl(block) }),
          breakpoint: block.cache_control ? { ttl: ttlOf(block.cache_control) } : null,
        });
      }
      systemText = texts.join('\n');
    } else {
      return invalid('system: Input should be a valid string or a valid list');
    }
  }

  // Shape of each message and each block.
  const lastIndex = messages.length - 1;
  const turns: Turn[] = [];
  const seenToolUseIds = new Set<string>();
  const tally = emptyTally();
  const mediaOptions = { model: body.model, noPdfModels: facts.noPdfModels, tokens: new WeakMap<Json, number>() };
  for (const [i, message] of messages.entries()) {
    if (!isRecord(message)) return invalid(`messages.${i}: Input should be a valid dictionary`);
    const role = message.role;
    if (role !== 'user' && role !== 'assistant' && role !== 'system') {
      return invalid(`messages.${i}.role: Input should be 'user', 'assistant' or 'system'`);
    }
    if (message.content === undefined) return invalid(`messages.${i}.content: Field required`);
    const isFinalAssistant = i === lastIndex && role === 'assistant';

    let blocks: Json[];
    if (typeof message.content === 'string') {
      if (message.content === '') {
        if (!isFinalAssistant) return invalid(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
        blocks = [];
      } else {
        if (message.content.trim() === '') return invalid('messages: text content blocks must contain non-whitespace text');
        blocks = [{ type: 'text', text: message.content }];
      }
    } else if (Array.isArray(message.content)) {
      if (message.content.length === 0 && !isFinalAssistant) {
        return invalid(`messages.${i}: all messages must have non-empty content except for the optional final assistant message`);
      }
      blocks = [];
      for (const [j, block] of (message.content as unknown[]).entries()) {
        if (!isRecord(block) || typeof block.type !== 'string') return invalid(`messages.${i}.content.${j}: Input should be a valid dictionary`);
        blocks.push(block);
      }
    } else {
      return invalid(`messages.${i}.content: Input should be a valid string or a valid list`);
    }

    for (const [j, block] of blocks.entries()) {
      const path = `messages.${i}.content.${j}`;
      const type = block.type as string;
      if (!KNOWN_BLOCK_TYPES.has(type)) {
        return invalid(`${path}: Input tag '${type}' found using 'type' does not match any of the expected tags`);
      }
      if (role === 'system' && type !== 'text') return invalid(`${path}.type: Input should be 'text'`);
      const cacheError = checkCacheControl(block.cache_control, path);
      if (cacheError) return invalid(cacheError);
      if (block.cache_control) breakpoints += 1;

      switch (type) {
        case 'text': {
          if (typeof block.text !== 'string') return invalid(`${path}.text: Input should be a valid string`);
          const problem = textCheck(block.text);
          if (problem) return invalid(problem);
          break;
        }
        case 'tool_use': {
          if (toolNames.length === 0) return invalid('Requests which include `tool_use` or `tool_result` blocks must define tools.');
          if (role !== 'assistant') return invalid(`${path}: \`tool_use\` blocks can only be in \`assistant\` messages`);
          if (typeof block.id !== 'string' || !TOOL_ID_PATTERN.test(block.id)) {
            return invalid(`${path}.tool_use.id: String should match pattern '^[a-zA-Z0-9_-]+$'`);
          }
          if (typeof block.name !== 'string' || block.name === '') return invalid(`${path}.tool_use.name: Field required`);
          if (!isRecord(block.input)) return invalid(`${path}.tool_use.input: Input should be a valid dictionary`);
          if (seenToolUseIds.has(block.id)) return invalid(`${path}: \`tool_use\` ids must be unique`);
          seenToolUseIds.add(block.id);
          break;
        }
        case 'tool_result': {
          if (toolNames.length === 0) return invalid('Requests which include `tool_use` or `tool_result` blocks must define tools.');
          if (role !== 'user') return invalid(`${path}: \`tool_result\` blocks can only be in \`user\` messages`);
          if (typeof block.tool_use_id !== 'string') return invalid(`${path}.tool_result.tool_use_id: Field required`);
          const content = block.content;
          if (Array.isArray(content)) {
            for (const [k, inner] of (content as unknown[]).entries()) {
              if (!isRecord(inner) || typeof inner.type !== 'string') return invalid(`${path}.tool_result.content.${k}: Input should be a valid dictionary`);
              const innerCache = checkCacheControl(inner.cache_control, `${path}.tool_result.content.${k}`);
              if (innerCache) return invalid(innerCache);
              if (inner.cache_control) breakpoints += 1;
              if (isMedia(inner)) {
                const problem = checkAnthropicMedia(inner, `${path}.tool_result.content.${k}`, `messages.${i}`, role, tally, mediaOptions);
                if (problem) return invalid(problem);
              } else if (inner.type === 'text') {
                const problem = typeof inner.text === 'string' ? textCheck(inner.text) : `${path}.tool_result.content.${k}.text: Field required`;
                if (problem) return invalid(problem);
              }
            }
          } else if (content !== undefined && typeof content !== 'string') {
            return invalid(`${path}.tool_result.content: Input should be a valid string or a valid list`);
          }
          break;
        }
        case 'thinking': {
          if (role !== 'assistant') return invalid(`${path}: \`thinking\` blocks can only be in \`assistant\` messages`);
          if (typeof block.thinking !== 'string') return invalid(`${path}.thinking.thinking: Field required`);
          if (typeof block.signature !== 'string') return invalid(`${path}.thinking.signature: Field required`);
          // The signature carries the full text: the block comes back as given, or empty when its display was omitted.
          const signed = thinkingOfSignature(block.signature);
          if (signed === null || (block.thinking !== '' && block.thinking !== signed)) return invalid(`${path}: Invalid \`signature\` in \`thinking\` block`);
          break;
        }
        case 'compaction':
          // Its beta, seal and place were checked with the request's compaction (checkAnthropicCompaction).
          if (role !== 'assistant') return invalid(`${path}: \`compaction\` blocks can only be in \`assistant\` messages`);
          break;
        case 'redacted_thinking':
          if (role !== 'assistant') return invalid(`${path}: \`redacted_thinking\` blocks can only be in \`assistant\` messages`);
          if (typeof block.data !== 'string') return invalid(`${path}.redacted_thinking.data: Field required`);
          // Its data comes back exactly as given (wording not published).
          if (!isRedactedData(block.data)) return invalid(`${path}: Invalid \`data\` in \`redacted_thinking\` block`);
          break;
        case 'image':
        case 'document': {
          const problem = checkAnthropicMedia(block, path, `messages.${i}`, role, tally, mediaOptions);
          if (problem) return invalid(problem);
          break;
        }
        default:
          break;
      }
    }

    if (isFinalAssistant) {
      const lastBlock = blocks.at(-1);
      if (lastBlock?.type === 'text' && typeof lastBlock.text === 'string' && /\s$/.test(lastBlock.text)) {
        return invalid('messages: final assistant content cannot end with trailing whitespace');
      }
    }

    const previous = turns.at(-1);
    const entries = blocks.map((block, index) => ({ block, message: i, index }));
    if (previous && previous.role === role && role !== 'system') {
      previous.indices.push(i);
      previous.blocks.push(...entries);
    } else {
      turns.push({ role, indices: [i], blocks: entries });
    }

    // Cache units: a message's role framing is charged to its first block.
    if (blocks.length === 0) {
      units.push({ tokens: FRAMING_TOKENS, material: canonicalJson({ role, empty: true }), breakpoint: null });
    }
    for (const [j, block] of blocks.entries()) {
      const innerBreakpoint = Array.isArray(block.content)
        ? (block.content as unknown[]).find((inner): inner is Json => isRecord(inner) && inner.cache_control != null)
        : undefined;
      const marker = block.cache_control ?? innerBreakpoint?.cache_control;
      units.push({
        tokens: (j === 0 ? FRAMING_TOKENS : 0) + blockTokens(block, mediaOptions.tokens),
        material: canonicalJson({ role, start: j === 0, block: withoutCacheControl(block) }),
        breakpoint: marker ? { ttl: ttlOf(marker) } : null,
      });
    }
  }

  const mediaProblem = checkMediaTally(tally, facts.contextWindow);
  if (mediaProblem) return invalid(mediaProblem);

  // A compaction block stands for everything before it, so the conversation may open with it
  // (the caller has already left out what came before: see checkAnthropicCompaction).
  const opensWithCompaction = turns[0]?.role === 'assistant' && turns[0].blocks[0]?.block.type === 'compaction';
  if (turns[0]?.role !== 'user' && !opensWithCompaction) return invalid('messages: first message must use the "user" role');
  if (endpoint === 'messages' && turns.at(-1)?.role === 'assistant' && !supportsPrefill(body.model)) {
    return invalid('This model does not support assistant message prefill. The conversation must end with a user message.');
  }

  // Mid-conversation system messages: right after a user turn, and followed by an assistant turn or nothing.
  for (const [t, turn] of turns.entries()) {
    if (turn.role !== 'system') continue;
    const before = turns[t - 1];
    const after = turns[t + 1];
    if (before?.role !== 'user' || (after !== undefined && after.role !== 'assistant')) {
      return invalid(
        `messages.${turn.indices[0]}: a \`system\` message must immediately follow a \`user\` message and be followed by an \`assistant\` message or end the conversation`,
      );
    }
  }

  // tool_use / tool_result pairing, on merged turns.
  for (const [t, turn] of turns.entries()) {
    if (turn.role === 'user') {
      const previous = turns[t - 1];
      const offered = new Set(
        previous?.role === 'assistant' ? previous.blocks.filter((entry) => entry.block.type === 'tool_use').map((entry) => entry.block.id as string) : [],
      );
      for (const entry of turn.blocks) {
        if (entry.block.type !== 'tool_result') continue;
        const id = entry.block.tool_use_id as string;
        if (!offered.has(id)) {
          return invalid(
            `messages.${entry.message}.content.${entry.index}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. ` +
              'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
          );
        }
      }
    } else if (turn.role === 'assistant') {
      const ids = turn.blocks.filter((entry) => entry.block.type === 'tool_use').map((entry) => entry.block.id as string);
      if (ids.length === 0) continue;
      const next = turns[t + 1];
      const answered = new Set<string>();
      if (next?.role === 'user') {
        for (const entry of next.blocks) {
          if (entry.block.type !== 'tool_result') break;
          answered.add(entry.block.tool_use_id as string);
        }
      }
      const missing = ids.filter((id) => !answered.has(id));
      if (missing.length > 0) {
        return invalid(
          `messages.${turn.indices.at(-1)}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${missing.join(', ')}. ` +
            'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
        );
      }
    }
  }

  // Top-level automatic caching puts one more breakpoint on the last cacheable block.
  if (body.cache_control !== undefined && body.cache_control !== null) {
    const cacheError = checkCacheControl(body.cache_control, 'body');
    if (cacheError) return invalid(cacheError.replace('body.', ''));
    breakpoints += 1;
    const last = units.at(-1);
    if (last) last.breakpoint = { ttl: ttlOf(body.cache_control) };
  }
  if (breakpoints > MAX_CACHE_BREAKPOINTS) {
    return invalid(`A maximum of ${MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found ${breakpoints}.`);
  }

  const thinking = checkThinkingRules(body.model, body, maxTokens);
  if ('error' in thinking) return invalid(thinking.error);

  // In a tool loop with thinking on, the assistant turn that made the calls must come back
  // starting with its thinking, when the reply that made them had thinking blocks, and with
  // every one of them: "filtering out redacted_thinking blocks triggers a 400 error" (Thinking in
  // tool and multi-turn workflows, read 2026-11-29). That 400's text is the API's as a public
  // client's regression test quotes it (the part after it is not confirmed, and left out).
  const finalTurn = turns.at(-1);
  const answersToolResults = finalTurn?.role === 'user' && finalTurn.blocks[0]?.block.type === 'tool_result';
  const caller = turns.at(-2);
  if (answersToolResults && thinking.on && caller?.role === 'assistant' && facts.thinkingBlocksBefore) {
    const isThought = (block: Json) => block.type === 'thinking' || block.type === 'redacted_thinking';
    const issued = Math.max(
      0,
      ...caller.blocks.filter((entry) => entry.block.type === 'tool_use').map((entry) => facts.thinkingBlocksBefore!(entry.block.id as string)),
    );
    const first = caller.blocks[0];
    const missing =
      caller.blocks.filter((entry) => isThought(entry.block)).length < issued ? caller.blocks.find((entry) => !isThought(entry.block)) : undefined;
    if (issued > 0 && first && !isThought(first.block)) {
      return invalid(
        `messages.${first.message}.content.${first.index}.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${String(first.block.type)}\`. ` +
          'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). ' +
          'We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. ' +
          'Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking',
      );
    }
    if (missing) {
      return invalid(
        `messages.${missing.message}.content.${missing.index}: \`thinking\` or \`redacted_thinking\` blocks in the latest assistant message cannot be modified.`,
      );
    }
  }

  // Preserved thinking: each block comes back after the prefix it was written after.
  if (PREFIX_CHECKED_MODELS.has(body.model) && !dropsMismatchedBlocks(body) && !facts.editedByServer) {
    for (const [m, message] of messages.entries()) {
      if (!isRecord(message) || message.role !== 'assistant' || !Array.isArray(message.content)) continue;
      for (const [b, block] of (message.content as unknown[]).entries()) {
        if (!isRecord(block) || block.type !== 'thinking' || typeof block.signature !== 'string') continue;
        if (prefixOfSignature(block.signature) !== prefixHash(body, m, b)) return invalid(boundElsewhere(m, b));
      }
    }
  }

  const lastUser = [...turns].reverse().find((turn) => turn.role === 'user');
  const lastUserText = (lastUser?.blocks ?? [])
    .filter((entry) => entry.block.type === 'text')
    .map((entry) => entry.block.text as string)
    .join('\n');
  return {
    ok: true,
    request: {
      body,
      model: body.model,
      maxTokens,
      stream: body.stream === true,
      units,
      inputTokens: units.reduce((sum, unit) => sum + unit.tokens, 0),
      systemText,
      lastUserText,
      answersToolResults,
      toolNames,
      callableTools: isRecord(body.tool_choice) && body.tool_choice.type === 'none' ? [] : toolNames,
      messageCount: messages.length,
      thinking,
    },
  };
}

/**
 * Redacted thinking (build-with-claude/thinking, "Redacted thinking", read 2026-11-29): part of
 * the thinking, encrypted, to be passed back unmodified. The fake seals it like a signature,
 * with this mark before the text, so only data it issued comes back valid.
 */
const REDACTED = 'redacted:';

function isRedactedData(data: string): boolean {
  return thinkingOfSignature(data)?.startsWith(REDACTED) === true;
}

/** The request chose to have blocks that fail the prefix check dropped rather than refused. */
function dropsMismatchedBlocks(body: Json): boolean {
  const binding = isRecord(body.thinking) ? body.thinking.block_binding : undefined;
  return isRecord(binding) && binding.prefix_mismatch_behavior === 'drop_block';
}

export interface AnthropicAnswer {
  message: Json;
  events: AnthropicEvent[];
  text: string;
  usage: Json;
}

/** What the request's compaction comes to: the block that opens the answer and its iteration's usage, when it compacted. */
export interface AnthropicCompactionOutcome {
  block?: Json;
  iteration?: Json;
}

export interface AnthropicIds {
  message: string;
  toolUse: () => string;
}

/**
 * The answer to an accepted request: the final Message (non-streaming body) and the event
 * sequence a stream sends for it. Output is cut at `max_tokens` like the real model's.
 */
export function buildAnthropicAnswer(
  request: AnthropicRequest,
  reply: ReplySpec,
  cache: AnthropicCacheOutcome,
  ids: AnthropicIds,
  compaction?: AnthropicCompactionOutcome,
  connector: Json[] = [],
): AnthropicAnswer {
  const limit = request.maxTokens ?? Number.POSITIVE_INFINITY;
  let budget = limit;
  let stopReason = 'end_turn';
  // A compaction opens the answer; what it cost is its own iteration, not the answer's output.
  const content: Json[] = compaction?.block ? [compaction.block] : [];

  // Scripted thinking is what the model thought: none when the request turned up-front thinking
  // off, and billed in full when `display: "omitted"` returns the block with empty text.
  const thinking = request.thinking.upFront ? (reply.thinking ?? '') : '';
  let hiddenTokens = 0;
  if (thinking !== '' && budget > 0) {
    const thinkingTokens = countTokens(thinking);
    const kept = thinkingTokens > budget ? truncateToTokens(thinking, budget) : thinking;
    budget -= Math.min(thinkingTokens, budget);
    const omitted = request.thinking.display === 'omitted';
    if (omitted) hiddenTokens = countTokens(kept);
    const bound = PREFIX_CHECKED_MODELS.has(request.model) ? prefixHash(request.body, request.messageCount, 0) : '';
    content.push({ type: 'thinking', thinking: omitted ? '' : kept, signature: thinkingSignature(kept, bound) });
    if (reply.redactedThinking) content.push({ type: 'redacted_thinking', data: thinkingSignature(`${REDACTED}${kept}`, bound) });
    if (thinkingTokens > limit) stopReason = 'max_tokens';
  }

  // The calls the provider ran through its connector come before the text the model wrote after reading them.
  content.push(...connector);

  let text = reply.text ?? '';
  if (countTokens(text) > budget) {
    text = truncateToTokens(text, budget);
    stopReason = 'max_tokens';
  }
  if (text !== '') content.push({ type: 'text', text, citations: null });

  if (stopReason !== 'max_tokens') {
    // A model calls only tools it may call; a scripted call to none is dropped, as the API would never return one.
    for (const call of request.callableTools.length > 0 ? (reply.toolCalls ?? []) : []) {
      content.push({ type: 'tool_use', id: call.id ?? ids.toolUse(), name: call.name, input: call.input });
      stopReason = 'tool_use';
    }
  }
  if (limit === 0) stopReason = 'max_tokens';

  const outputTokens = Math.min(
    limit,
    hiddenTokens +
      content.reduce(
        (sum, block) => (block.type === 'compaction' ? sum : sum + (block.type === 'tool_use' ? FRAMING_TOKENS : 0) + countTokens(blockText(block))),
        0,
      ),
  );
  const usage = anthropicUsage(cache, outputTokens);
  if (compaction) {
    // With the compaction beta every answer itemizes its sampling steps (“Understanding usage”).
    const step = {
      type: 'message',
      input_tokens: usage.input_tokens,
      output_tokens: outputTokens,
      cache_read_input_tokens: usage.cache_read_input_tokens,
      cache_creation_input_tokens: usage.cache_creation_input_tokens,
    };
    usage.iterations = [...(compaction.iteration ? [compaction.iteration] : []), step];
  }
  const message: Json = {
    id: ids.message,
    type: 'message',
    role: 'assistant',
    model: request.model,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    stop_details: null,
    container: null,
    usage,
  };

  const events = anthropicStreamEvents(message, Math.min(1, limit), (piece, kind) =>
    kind === 'input_json' ? splitEvenly(piece, 3) : splitIntoDeltas(piece, kind === 'text' ? reply.deltas : undefined),
  );

  return { message, events, text, usage };
}
