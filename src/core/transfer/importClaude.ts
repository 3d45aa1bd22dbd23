/**
 * Reads Claude's data export (`conversations.json`): an array of
 * `{ uuid, name, created_at, updated_at, chat_messages: [{ uuid, sender, text, content,
 * created_at, attachments, files }] }` with ISO-8601 times.
 *
 * Messages are taken in array order. When every message records `parent_message_uuid`
 * and some message has several children (a retried answer or an edited prompt), the
 * conversation is a tree and is imported like ChatGPT's: the path ending at
 * `current_leaf_message_uuid` first, each other branch as "… (branch N)". Tools ran on
 * claude.ai and cannot be replayed, so tool calls and results become labelled text;
 * thinking stays a thinking block (without a signature). Attachment text extracted by
 * Claude is kept with its message; uploaded files, absent from the export, are named.
 */
import type { ContentBlock, Conversation, StoredMessage } from '../conversation';
import type { ConversationRecords, ImportParseResult } from './exportFormat';
import { countImported, distinctSequences, treePaths, type TreeNode } from './conversationTree';
import { fence } from './markdownText';
import { MalformedImport, isRecord, malformed, optional, readArray, readNonEmptyString, readRecord, readString } from './readJson';

/**
 * Canonical records from a parsed Claude `conversations.json`. `importedAt` (epoch ms)
 * stands in for missing times.
 */
export function parseClaudeExport(data: unknown, importedAt: number): ImportParseResult {
  try {
    const list = readArray(data, 'the file');
    const conversations: ConversationRecords[] = [];
    const branchIds: string[] = [];
    let total = 0;
    list.forEach((item, i) => {
      const records = readConversation(item, `conversation ${i + 1}`, importedAt);
      total = countImported(total, records, `conversation ${i + 1}`);
      const [main, ...branches] = records;
      if (main) conversations.push(main);
      for (const branch of branches) {
        conversations.push(branch);
        branchIds.push(branch.conversation.id);
      }
    });
    return { ok: true, value: { format: 'claude', conversations, branchIds } };
  } catch (error) {
    if (error instanceof MalformedImport) {
      return {
        ok: false,
        error: { code: 'import_invalid', message: `This Claude export could not be read, so nothing was imported: ${error.message}.` },
      };
    }
    throw error;
  }
}

interface ImportedMessage {
  uuid: string;
  parent: string | undefined;
  /** Null for a sender Windowpane has no role for: kept in the tree, left out of the transcript. */
  role: 'user' | 'assistant' | null;
  content: ContentBlock[];
  createdAt: number | undefined;
}

function readConversation(value: unknown, path: string, importedAt: number): ConversationRecords[] {
  const raw = readRecord(value, path);
  const sourceId = readNonEmptyString(raw.uuid, `${path}.uuid`);
  const title = optional(raw.name, `${path}.name`, readString)?.trim() || 'Untitled conversation';
  const createdAt = optional(raw.created_at, `${path}.created_at`, readTime) ?? importedAt;
  const updatedAt = optional(raw.updated_at, `${path}.updated_at`, readTime) ?? createdAt;
  const model = optional(raw.model, `${path}.model`, readString) || undefined;
  const currentLeaf = optional(raw.current_leaf_message_uuid, `${path}.current_leaf_message_uuid`, readString);

  const imported: ImportedMessage[] = [];
  const uuids = new Set<string>();
  readArray(raw.chat_messages, `${path}.chat_messages`).forEach((item, j) => {
    const messagePath = `${path}.chat_messages[${j}]`;
    const message = readMessage(item, messagePath);
    if (uuids.has(message.uuid)) {
      throw new MalformedImport(`${messagePath}.uuid`, `message uuid "${message.uuid}" appears twice in one conversation`);
    }
    uuids.add(message.uuid);
    imported.push(message);
  });

  const byUuid = new Map(imported.map((m) => [m.uuid, m]));
  const paths = messagePaths(imported, currentLeaf, `${path}.chat_messages`);

  const visiblePaths = paths.map((ids) => ids.filter((uuid) => byUuid.get(uuid)!.role !== null));
  const keep = distinctSequences(visiblePaths);
  const out: ConversationRecords[] = [];
  for (const [index, allIds] of paths.entries()) {
    if (!keep[index]) continue;
    const ids = visiblePaths[index]!;
    const isMain = index === 0;
    const leaf = allIds.at(-1);
    const conversationId = isMain ? `claude:${sourceId}` : `claude:${sourceId}#${leaf}`;
    const messages = ids.map((uuid, seq): StoredMessage => {
      const source = byUuid.get(uuid)!;
      const message: StoredMessage = {
        id: `${conversationId}/${uuid}`,
        conversationId,
        seq,
        role: source.role!,
        kind: 'message',
        content: source.content,
        createdAt: source.createdAt ?? createdAt,
        status: 'complete',
      };
      if (source.role === 'assistant') {
        message.provider = 'anthropic';
        if (model) message.model = model;
      }
      return message;
    });
    const conversation: Conversation = {
      id: conversationId,
      title: isMain ? title : `${title} (branch ${out.length + 1})`,
      createdAt,
      updatedAt: isMain ? updatedAt : messages.reduce((latest, m) => Math.max(latest, m.createdAt), createdAt),
      messageCount: messages.length,
      source: { kind: 'claude', id: isMain ? sourceId : `${sourceId}#${leaf}` },
    };
    out.push({ conversation, messages });
  }
  return out;
}

/** The message sequences to import: one, in array order, unless the messages form a branching tree. */
function messagePaths(messages: readonly ImportedMessage[], currentLeaf: string | undefined, path: string): string[][] {
  const linear = [messages.map((m) => m.uuid)];
  if (messages.length === 0 || messages.some((m) => m.parent === undefined)) return linear;
  const nodes = new Map<string, TreeNode>();
  for (const m of messages) nodes.set(m.uuid, { id: m.uuid, parent: m.parent ?? null, children: [] });
  const childCount = new Map<string, number>();
  for (const m of messages) {
    const parent = nodes.get(m.parent!);
    if (parent) {
      (parent.children as string[]).push(m.uuid);
      childCount.set(parent.id, (childCount.get(parent.id) ?? 0) + 1);
    }
  }
  const roots = messages.filter((m) => !nodes.has(m.parent!)).length;
  const branching = roots > 1 || [...childCount.values()].some((count) => count > 1);
  return branching ? treePaths(nodes, currentLeaf, path) : linear;
}

/** One chat message; its role is null for a sender Windowpane has no role for. */
function readMessage(value: unknown, path: string): ImportedMessage {
  const raw = readRecord(value, path);
  const uuid = readNonEmptyString(raw.uuid, `${path}.uuid`);
  const sender = readString(raw.sender, `${path}.sender`);
  const parent = optional(raw.parent_message_uuid, `${path}.parent_message_uuid`, readString);
  const createdAt = optional(raw.created_at, `${path}.created_at`, readTime);
  if (sender !== 'human' && sender !== 'assistant') return { uuid, parent, role: null, content: [], createdAt };

  const content: ContentBlock[] = [];
  const blocks = optional(raw.content, `${path}.content`, readArray) ?? [];
  blocks.forEach((block, k) => {
    const converted = readBlock(block, `${path}.content[${k}]`);
    if (converted) content.push(converted);
  });
  if (content.length === 0) {
    const text = optional(raw.text, `${path}.text`, readString) ?? '';
    if (text.trim() !== '') content.push({ type: 'text', text });
  }
  (optional(raw.attachments, `${path}.attachments`, readArray) ?? []).forEach((item, k) => {
    const attachment = readRecord(item, `${path}.attachments[${k}]`);
    const name = optional(attachment.file_name, `${path}.attachments[${k}].file_name`, readString) || 'attachment';
    const extracted = optional(attachment.extracted_content, `${path}.attachments[${k}].extracted_content`, readString) ?? '';
    const label = `**Attachment:** \`${name}\``;
    content.push({ type: 'text', text: extracted.trim() ? `${label}\n\n${fence(extracted, '')}` : label });
  });
  // Newer exports repeat `files` as `files_v2`; name each file once.
  const filesKey = raw.files !== undefined && raw.files !== null ? 'files' : 'files_v2';
  (optional(raw[filesKey], `${path}.${filesKey}`, readArray) ?? []).forEach((item, k) => {
    const file = readRecord(item, `${path}.${filesKey}[${k}]`);
    const name = optional(file.file_name, `${path}.${filesKey}[${k}].file_name`, readString);
    if (name) content.push({ type: 'text', text: `**File:** \`${name}\` (its contents are not in the export file)` });
  });
  return { uuid, parent, role: sender === 'human' ? 'user' : 'assistant', content, createdAt };
}

function readBlock(value: unknown, path: string): ContentBlock | null {
  const block = readRecord(value, path);
  const type = readString(block.type, `${path}.type`);
  switch (type) {
    case 'text': {
      const text = readString(block.text ?? '', `${path}.text`);
      return text.trim() === '' ? null : { type: 'text', text };
    }
    case 'thinking': {
      const thinking = readString(block.thinking ?? '', `${path}.thinking`);
      return thinking.trim() === '' ? null : { type: 'thinking', thinking };
    }
    case 'tool_use': {
      const name = optional(block.name, `${path}.name`, readString) || 'tool';
      const input = block.input === undefined ? '' : `\n\n${fence(JSON.stringify(block.input, null, 2), 'json')}`;
      return { type: 'text', text: `**Tool call:** \`${name}\`${input}` };
    }
    case 'tool_result': {
      const name = optional(block.name, `${path}.name`, readString) || 'tool';
      const output = resultText(block.content);
      const label = `**Tool result** (\`${name}\`)${block.is_error === true ? ' — error' : ''}:`;
      return { type: 'text', text: output ? `${label}\n\n${fence(output, '')}` : label };
    }
    default:
      return typeof block.text === 'string' && block.text.trim() !== '' ? { type: 'text', text: block.text } : null;
  }
}

/** Readable text of a tool result's content: a string, or a list of text / search-result items. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((item: unknown) => {
      if (typeof item === 'string') return item;
      if (!isRecord(item)) return '';
      const heading = [item.title, item.url].filter((s) => typeof s === 'string' && s).join(' — ');
      const text = typeof item.text === 'string' ? item.text : '';
      return [heading, text].filter((s) => s !== '').join('\n');
    })
    .filter((s) => s !== '')
    .join('\n\n');
}

/** An ISO-8601 time as epoch ms; malformed when it is not text or not a date. */
function readTime(value: unknown, path: string): number {
  const text = readString(value, path);
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : malformed(path, 'an ISO-8601 date', value);
}
