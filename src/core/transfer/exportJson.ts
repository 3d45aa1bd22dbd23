/**
 * Windowpane JSON export: every field of every stored record, so an import gives back
 * exactly what was exported. Records are copied field by field (never spread), so nothing
 * that is not part of the canonical model — settings, API keys — can ride along.
 */
import { withExplicitParents } from '../branches';
import { utf8Bytes } from '../utf8';
import type { ContentBlock, Conversation, StoredMessage } from '../conversation';
import { reasoningTokensOf, wholeCount } from '../conversation';
import {
  MAX_IMPORT_BYTES,
  WINDOWPANE_EXPORT_FORMAT,
  WINDOWPANE_EXPORT_VERSION,
  type ConversationRecords,
  type ExportedFile,
  type WindowpaneExport,
} from './exportFormat';
import { withoutSecrets } from './secrets';
import { readStoredContextEdits } from '../storedContextEdits';

/**
 * The JSON text of a Windowpane export of `entries` (one conversation or all, every branch),
 * written at `exportedAt` (epoch ms). Messages are written in `seq` order, each with the
 * parent it is read as following (a record written before branches existed gets the one
 * it implies). Credentials inside `overrides` are removed; nothing else is changed or dropped.
 * `files`, when given, are the images the messages refer to, written with their bytes.
 */
export function exportToJson(entries: readonly ConversationRecords[], exportedAt: number, files?: readonly ExportedFile[]): string {
  const file: WindowpaneExport = {
    format: WINDOWPANE_EXPORT_FORMAT,
    version: WINDOWPANE_EXPORT_VERSION,
    exportedAt,
    conversations: entries.map(exportRecords),
  };
  if (files) {
    file.files = files.map(({ id, conversationId, name, mediaType, bytes, createdAt, data }) => ({
      id,
      conversationId,
      name,
      mediaType,
      bytes,
      createdAt,
      data,
    }));
  }
  return JSON.stringify(file, null, 2);
}

/**
 * The export of `entries` as one file or, when that would be larger than `maxBytes` of
 * UTF-8 (what Import takes), as several, split between conversations (each file with the
 * images of its own conversations), so a year of history can be imported again. A single
 * conversation larger than that is a file of its own, which Import refuses by its size.
 */
export function exportToJsonParts(
  entries: readonly ConversationRecords[],
  exportedAt: number,
  files?: readonly ExportedFile[],
  maxBytes: number = MAX_IMPORT_BYTES,
): string[] {
  const text = exportToJson(entries, exportedAt, files);
  if (entries.length <= 1 || utf8Bytes(text) <= maxBytes) return [text];
  const half = Math.ceil(entries.length / 2);
  return [entries.slice(0, half), entries.slice(half)].flatMap((part) => {
    const ids = new Set(part.map((entry) => entry.conversation.id));
    return exportToJsonParts(
      part,
      exportedAt,
      files?.filter((file) => ids.has(file.conversationId)),
      maxBytes,
    );
  });
}

/** A clean copy of one conversation and its messages, as written to an export. */
export function exportRecords(entry: ConversationRecords): ConversationRecords {
  const messages = withExplicitParents([...entry.messages].sort((a, b) => a.seq - b.seq)).map(exportMessage);
  return { conversation: exportConversation(entry.conversation, new Set(messages.map((m) => m.id))), messages };
}

function exportConversation(conversation: Conversation, messageIds: ReadonlySet<string>): Conversation {
  const out: Conversation = {
    id: conversation.id,
    title: conversation.title,
    createdAt: conversation.createdAt,
    updatedAt: conversation.updatedAt,
    messageCount: conversation.messageCount,
  };
  if (conversation.overrides !== undefined) {
    out.overrides = withoutSecrets(conversation.overrides) as Record<string, unknown>;
  }
  // Written only when it names a message: the branch shown then comes back with the rest.
  const leaf = conversation.activeLeafId;
  if (typeof leaf === 'string' && leaf !== '' && messageIds.has(leaf)) out.activeLeafId = leaf;
  if (conversation.source !== undefined) out.source = { kind: conversation.source.kind, id: conversation.source.id };
  return out;
}

function exportMessage(message: StoredMessage): StoredMessage {
  const out: StoredMessage = {
    id: message.id,
    conversationId: message.conversationId,
    seq: message.seq,
    parentId: message.parentId ?? null,
    role: message.role,
    kind: message.kind,
    // A record another version wrote may hold no list or non-blocks: export what is there, never throw.
    content: Array.isArray(message.content) ? message.content.filter(isBlock).map(exportBlock) : [],
    createdAt: message.createdAt,
    status: message.status,
  };
  if (message.pinned !== undefined) out.pinned = message.pinned;
  if (message.covers !== undefined) out.covers = [...message.covers];
  if (message.model !== undefined) out.model = message.model;
  if (message.provider !== undefined) out.provider = message.provider;
  if (message.usage !== undefined) {
    const { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens } = message.usage;
    out.usage = { inputTokens, outputTokens, cacheReadTokens, cacheWriteTokens };
    const reasoning = reasoningTokensOf(message.usage);
    if (reasoning !== undefined) out.usage.reasoningTokens = reasoning;
    if (message.usage.compaction !== undefined) out.usage.compaction = { ...message.usage.compaction };
  }
  if (message.error !== undefined) out.error = { code: message.error.code, message: message.error.message };
  if (typeof message.thinkingPrefix === 'string') out.thinkingPrefix = message.thinkingPrefix;
  const thinkingMs = wholeCount(message.thinkingMs);
  if (thinkingMs !== undefined) out.thinkingMs = thinkingMs;
  const contextEdits = readStoredContextEdits(message.contextEdits);
  if (contextEdits !== undefined) out.contextEdits = contextEdits;
  return out;
}

function isBlock(block: unknown): block is ContentBlock {
  return typeof block === 'object' && block !== null && typeof (block as { type?: unknown }).type === 'string';
}

function exportBlock(block: ContentBlock): ContentBlock {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_use':
      return { type: 'tool_use', id: block.id, name: block.name, input: block.input };
    case 'tool_result': {
      const out: ContentBlock = { type: 'tool_result', tool_use_id: block.tool_use_id, content: block.content };
      if (block.is_error !== undefined) out.is_error = block.is_error;
      // References like a user's images: their bytes travel in the export's `files`.
      if (block.images?.length) out.images = block.images.map((image) => ({ ...image, ...(image.original ? { original: { ...image.original } } : {}) }));
      return out;
    }
    case 'thinking': {
      const out: ContentBlock = { type: 'thinking', thinking: block.thinking };
      if (block.signature !== undefined) out.signature = block.signature;
      if (block.reasoningItem !== undefined) out.reasoningItem = { id: block.reasoningItem.id, encryptedContent: block.reasoningItem.encryptedContent };
      return out;
    }
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: block.data };
    case 'compaction': {
      const out: ContentBlock = { type: 'compaction', provider: block.provider, summary: block.summary, fields: { ...block.fields } };
      if (block.compactedTokens !== undefined) out.compactedTokens = block.compactedTokens;
      if (block.summaryTokens !== undefined) out.summaryTokens = block.summaryTokens;
      return out;
    }
    default:
      // A block type this version does not know (a newer version wrote it): kept as it is.
      return { ...(block as object) } as ContentBlock;
  }
}
