/**
 * Reads one conversation or one message record as Windowpane writes it, checking every
 * field. The Windowpane import reads each entry of a file with these
 * (`importWindowpane.ts`), and the app every record it reads back from IndexedDB
 * (`storedRecords.ts`), so a record the app can export is one it can read back; being apart
 * from the import's reading of a whole file, they load with the first screen without it.
 */
import type {
  CompactionBlock,
  ContentBlock,
  Conversation,
  DocumentBlock,
  ImageBlock,
  MessageStatus,
  ProviderId,
  ReasoningItem,
  StoredMessage,
  Usage,
} from '../conversation';
import { reasoningTokensOf, wholeCount } from '../conversation';
import { readStoredContextEdits } from '../storedContextEdits';
import { IMAGE_MEDIA_TYPES } from '../tokens/imageTokens';
import {
  MalformedImport,
  malformed,
  optional,
  readArray,
  readBoolean,
  readFiniteNumber,
  readNonEmptyString,
  readOneOf,
  readRecord,
  readString,
  withinDepth,
  type JsonRecord,
} from './readJson';

const ROLES = ['user', 'assistant'] as const;
const KINDS = ['message', 'summary'] as const;
const STATUSES: readonly MessageStatus[] = ['complete', 'streaming', 'stopped', 'interrupted', 'error'];
const PROVIDERS: readonly ProviderId[] = ['anthropic', 'openai', 'openai-compatible', 'demo'];
const SOURCES = ['windowpane', 'chatgpt', 'claude'] as const;

/** Deepest nesting accepted in free-form values (tool inputs, overrides). */
const MAX_VALUE_DEPTH = 64;

/** Reads one conversation record, throwing `MalformedImport` naming the first bad field. */
export function readConversation(value: unknown, path: string): Conversation {
  const raw = readRecord(value, path);
  const conversation: Conversation = {
    id: readNonEmptyString(raw.id, `${path}.id`),
    title: readString(raw.title, `${path}.title`),
    createdAt: readFiniteNumber(raw.createdAt, `${path}.createdAt`),
    updatedAt: readFiniteNumber(raw.updatedAt, `${path}.updatedAt`),
    messageCount: readFiniteNumber(raw.messageCount, `${path}.messageCount`),
  };
  const activeLeafId = optional(raw.activeLeafId, `${path}.activeLeafId`, readNonEmptyString);
  if (activeLeafId !== undefined) conversation.activeLeafId = activeLeafId;
  const overrides = optional(raw.overrides, `${path}.overrides`, readRecord);
  if (overrides !== undefined) conversation.overrides = readFreeForm(overrides, `${path}.overrides`) as JsonRecord;
  const source = optional(raw.source, `${path}.source`, readRecord);
  if (source !== undefined) {
    conversation.source = {
      kind: readOneOf(source.kind, SOURCES, `${path}.source.kind`),
      id: readNonEmptyString(source.id, `${path}.source.id`),
    };
  }
  return conversation;
}

/** Reads one message record, throwing `MalformedImport` naming the first bad field. */
export function readMessage(value: unknown, path: string): StoredMessage {
  const raw = readRecord(value, path);
  const status = readOneOf(raw.status, STATUSES, `${path}.status`);
  const message: StoredMessage = {
    id: readNonEmptyString(raw.id, `${path}.id`),
    conversationId: readNonEmptyString(raw.conversationId, `${path}.conversationId`),
    seq: readFiniteNumber(raw.seq, `${path}.seq`),
    role: readOneOf(raw.role, ROLES, `${path}.role`),
    kind: readOneOf(raw.kind, KINDS, `${path}.kind`),
    content: readArray(raw.content, `${path}.content`).map((block, k) => readBlock(block, `${path}.content[${k}]`)),
    createdAt: readFiniteNumber(raw.createdAt, `${path}.createdAt`),
    status: status === 'streaming' ? 'interrupted' : status,
  };
  // null is a first message; absent (a record from before branches) follows the previous one.
  if (raw.parentId === null) message.parentId = null;
  else if (raw.parentId !== undefined) message.parentId = readNonEmptyString(raw.parentId, `${path}.parentId`);
  const pinned = optional(raw.pinned, `${path}.pinned`, readBoolean);
  if (pinned !== undefined) message.pinned = pinned;
  const covers = optional(raw.covers, `${path}.covers`, readArray);
  if (covers !== undefined) message.covers = covers.map((id, k) => readNonEmptyString(id, `${path}.covers[${k}]`));
  const model = optional(raw.model, `${path}.model`, readString);
  if (model !== undefined) message.model = model;
  const provider = optional(raw.provider, `${path}.provider`, (v, p) => readOneOf(v, PROVIDERS, p));
  if (provider !== undefined) message.provider = provider;
  const usage = optional(raw.usage, `${path}.usage`, readUsage);
  if (usage !== undefined) message.usage = usage;
  const error = optional(raw.error, `${path}.error`, readRecord);
  if (error !== undefined) {
    message.error = { code: readString(error.code, `${path}.error.code`), message: readString(error.message, `${path}.error.message`) };
  }
  // Derived, never a reason to refuse a message: one that is not a key is left out, and the
  // answer's thinking is then not sent back on a model that checks its prefix.
  if (typeof raw.thinkingPrefix === 'string' && /^[0-9a-f]{16}$/.test(raw.thinkingPrefix)) message.thinkingPrefix = raw.thinkingPrefix;
  // Shown, never sent: a duration that is not a whole count of ms is left out, the message kept.
  const thinkingMs = wholeCount(raw.thinkingMs);
  if (thinkingMs !== undefined) message.thinkingMs = thinkingMs;
  // Shown, never sent: what is not a valid edit is left out, the message kept.
  const contextEdits = readStoredContextEdits(raw.contextEdits);
  if (contextEdits !== undefined) message.contextEdits = contextEdits;
  return message;
}

function readUsage(value: unknown, path: string): Usage {
  const raw = readRecord(value, path);
  const usage: Usage = {
    inputTokens: readFiniteNumber(raw.inputTokens, `${path}.inputTokens`),
    outputTokens: readFiniteNumber(raw.outputTokens, `${path}.outputTokens`),
    cacheReadTokens: readFiniteNumber(raw.cacheReadTokens, `${path}.cacheReadTokens`),
    cacheWriteTokens: readFiniteNumber(raw.cacheWriteTokens, `${path}.cacheWriteTokens`),
  };
  // A breakdown of the output, never a reason to refuse the usage: one that is not a whole
  // count within the output is left out.
  const reasoning = reasoningTokensOf({ ...usage, reasoningTokens: raw.reasoningTokens as number });
  if (reasoning !== undefined) usage.reasoningTokens = reasoning;
  // What a compaction cost, likewise: kept only when all four are whole counts.
  const compaction = raw.compaction;
  if (typeof compaction === 'object' && compaction !== null) {
    const c = compaction as Record<string, unknown>;
    const counts = [c.inputTokens, c.outputTokens, c.cacheReadTokens, c.cacheWriteTokens].map(wholeCount);
    const [inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens] = counts;
    if (inputTokens !== undefined && outputTokens !== undefined && cacheReadTokens !== undefined && cacheWriteTokens !== undefined) {
      usage.compaction = { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens };
    }
  }
  return usage;
}

function readBlock(value: unknown, path: string): ContentBlock {
  const raw = readRecord(value, path);
  const type = readOneOf(
    raw.type,
    ['text', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking', 'image', 'document', 'compaction', 'provider_tool'] as const,
    `${path}.type`,
  );
  switch (type) {
    case 'text':
      return { type, text: readString(raw.text, `${path}.text`) };
    case 'tool_use':
      return {
        type,
        id: readString(raw.id, `${path}.id`),
        name: readString(raw.name, `${path}.name`),
        input: readFreeForm(raw.input, `${path}.input`),
      };
    case 'tool_result': {
      const block: ContentBlock = {
        type,
        tool_use_id: readString(raw.tool_use_id, `${path}.tool_use_id`),
        content: readString(raw.content, `${path}.content`),
      };
      const isError = optional(raw.is_error, `${path}.is_error`, readBoolean);
      if (isError !== undefined) block.is_error = isError;
      if (raw.images !== undefined) {
        const images = readArray(raw.images, `${path}.images`).map((value, i) => {
          const image = readRecord(value, `${path}.images[${i}]`);
          readOneOf(image.type, ['image'] as const, `${path}.images[${i}].type`);
          return readImageBlock(image, `${path}.images[${i}]`);
        });
        if (images.length > 0) block.images = images;
      }
      return block;
    }
    case 'thinking': {
      const block: ContentBlock = { type, thinking: readString(raw.thinking, `${path}.thinking`) };
      const signature = optional(raw.signature, `${path}.signature`, readString);
      if (signature !== undefined) block.signature = signature;
      const item = optional(raw.reasoningItem, `${path}.reasoningItem`, readReasoningItem);
      if (item !== undefined) block.reasoningItem = item;
      return block;
    }
    case 'redacted_thinking':
      return { type, data: readString(raw.data, `${path}.data`) };
    case 'image':
      return readImageBlock(raw, path);
    case 'document':
      return readDocumentBlock(raw, path);
    case 'compaction':
      return readCompactionBlock(raw, path);
    case 'provider_tool':
      return {
        type,
        provider: readOneOf(raw.provider, ['anthropic', 'openai'] as const, `${path}.provider`),
        id: readString(raw.id, `${path}.id`),
        server: readString(raw.server, `${path}.server`),
        name: readString(raw.name, `${path}.name`),
        input: readFreeForm(raw.input, `${path}.input`),
        output: readString(raw.output, `${path}.output`),
        isError: readBoolean(raw.isError, `${path}.isError`),
      };
  }
}

/** Plain JSON: what goes back to a provider as it came (no NaN, Infinity, functions or class instances). */
function isJsonValue(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((item) => isJsonValue(item, depth + 1));
  if (typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return false;
  return Object.values(value as Record<string, unknown>).every((item) => isJsonValue(item, depth + 1));
}

/** A provider's compaction: its fields go back to the provider as they are, so only JSON values pass. */
function readCompactionBlock(raw: JsonRecord, path: string): CompactionBlock {
  const provider = readOneOf(raw.provider, ['anthropic', 'openai'] as const, `${path}.provider`);
  const summary = raw.summary === null ? null : readString(raw.summary, `${path}.summary`);
  const fields = readRecord(raw.fields, `${path}.fields`);
  if (!isJsonValue(fields)) malformed(`${path}.fields`, 'JSON values only', fields);
  if (provider === 'openai' && typeof fields.encrypted_content !== 'string')
    malformed(`${path}.fields.encrypted_content`, 'a string', fields.encrypted_content);
  const block: CompactionBlock = { type: 'compaction', provider, summary, fields: { ...fields } };
  // Counts shown beside it, never a reason to refuse it: one that is not a whole count is left out.
  const compacted = wholeCount(raw.compactedTokens);
  if (compacted !== undefined) block.compactedTokens = compacted;
  const written = wholeCount(raw.summaryTokens);
  if (written !== undefined) block.summaryTokens = written;
  return block;
}

function readPixels(value: unknown, path: string): number {
  const n = readFiniteNumber(value, path);
  if (!Number.isInteger(n) || n < 1 || n > 100_000) malformed(path, 'a whole number of pixels from 1 to 100,000', value);
  return n;
}

/** A whole number of bytes, throwing `MalformedImport` naming `path` otherwise. */
export function readByteCount(value: unknown, path: string): number {
  const n = readFiniteNumber(value, path);
  if (!Number.isInteger(n) || n < 0) malformed(path, 'a whole number of bytes', value);
  return n;
}

/** An image reference (its bytes are stored apart, or travel in the export's `files`). */
function readImageBlock(raw: JsonRecord, path: string): ImageBlock {
  const block: ImageBlock = {
    type: 'image',
    fileId: readNonEmptyString(raw.fileId, `${path}.fileId`),
    name: readString(raw.name, `${path}.name`),
    mediaType: readOneOf(raw.mediaType, IMAGE_MEDIA_TYPES, `${path}.mediaType`),
    width: readPixels(raw.width, `${path}.width`),
    height: readPixels(raw.height, `${path}.height`),
    bytes: readByteCount(raw.bytes, `${path}.bytes`),
  };
  if (raw.original !== undefined) {
    const original = readRecord(raw.original, `${path}.original`);
    block.original = {
      width: readPixels(original.width, `${path}.original.width`),
      height: readPixels(original.height, `${path}.original.height`),
      bytes: readByteCount(original.bytes, `${path}.original.bytes`),
    };
  }
  return block;
}

/** A PDF reference: its bytes and page texts are stored apart, like an image's. */
function readDocumentBlock(raw: JsonRecord, path: string): DocumentBlock {
  const pages = readFiniteNumber(raw.pages, `${path}.pages`);
  if (!Number.isInteger(pages) || pages < 1 || pages > 100_000) malformed(`${path}.pages`, 'a whole number of pages from 1 to 100,000', raw.pages);
  const block: DocumentBlock = {
    type: 'document',
    fileId: readNonEmptyString(raw.fileId, `${path}.fileId`),
    name: readString(raw.name, `${path}.name`),
    mediaType: readOneOf(raw.mediaType, ['application/pdf'] as const, `${path}.mediaType`),
    bytes: readByteCount(raw.bytes, `${path}.bytes`),
    pages,
  };
  if (raw.pageTokens !== undefined) {
    const list = raw.pageTokens;
    if (!Array.isArray(list) || list.length !== pages) malformed(`${path}.pageTokens`, 'one whole number of tokens per page', list);
    block.pageTokens = (list as unknown[]).map((n, i) => {
      const tokens = readFiniteNumber(n, `${path}.pageTokens.${i}`);
      if (!Number.isInteger(tokens) || tokens < 0) malformed(`${path}.pageTokens.${i}`, 'a whole number of tokens', n);
      return tokens;
    });
  }
  return block;
}

function readFreeForm(value: unknown, path: string): unknown {
  if (!withinDepth(value, MAX_VALUE_DEPTH)) {
    throw new MalformedImport(path, `${path} is nested more than ${MAX_VALUE_DEPTH} levels deep`);
  }
  return value;
}

function readReasoningItem(value: unknown, path: string): ReasoningItem {
  const raw = readRecord(value, path);
  return { id: readString(raw.id, `${path}.id`), encryptedContent: readString(raw.encryptedContent, `${path}.encryptedContent`) };
}
