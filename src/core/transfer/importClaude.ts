/**
 * Reads Claude's data export (`conversations.json`): an array of
 * `{ uuid, name, created_at, updated_at, chat_messages: [{ uuid, sender, text, content,
 * created_at, attachments, files }] }` with ISO-8601 times.
 *
 * When every message records `parent_message_uuid`, the conversation is a tree (a retried
 * answer or an edited prompt is another version of a message) and is imported whole, like
 * ChatGPT's: the branch ending at `current_leaf_message_uuid` is the one shown, else the
 * newest. Otherwise messages follow one another in array order. Tools (web search,
 * artifacts, analysis) ran on claude.ai: each call and its result become a tool exchange,
 * shown as a collapsed tool row (see importedTools.ts); thinking stays a thinking block
 * (without a signature). Attachment text extracted by
 * Claude is kept with its message; uploaded files, absent from the export, are named.
 */
import { buildTree, newestLeafUnder } from '../branches';
import type { ContentBlock, Conversation, StoredMessage, ToolResultBlock } from '../conversation';
import type { ConversationRecords } from './exportFormat';
import { shownTree, type ShownNode, type TreeNode } from './conversationTree';
import { fence } from './markdownText';
import { MISSING_TOOL_OUTPUT, importedToolId, importedToolName, wholeToolExchanges, type ResultTools } from './importedTools';
import { MalformedImport, isRecord, malformed, optional, readArray, readNonEmptyString, readRecord, readString } from './readJson';

interface ImportedMessage {
  uuid: string;
  parent: string | undefined;
  /** Null for a sender Windowpane has no role for: kept in the tree, left out of the transcript. */
  role: 'user' | 'assistant' | null;
  content: ContentBlock[];
  createdAt: number | undefined;
}

/**
 * One conversation of a Claude export (`index` counts from 0), for importing conversation
 * by conversation. Throws `MalformedImport` naming the first bad field.
 */
export function readClaudeConversation(value: unknown, index: number, importedAt: number): ConversationRecords {
  return readConversation(value, `conversation ${index + 1}`, importedAt);
}

function readConversation(value: unknown, path: string, importedAt: number): ConversationRecords {
  const raw = readRecord(value, path);
  const sourceId = readNonEmptyString(raw.uuid, `${path}.uuid`);
  const title = optional(raw.name, `${path}.name`, readString)?.trim() || 'Untitled conversation';
  const createdAt = optional(raw.created_at, `${path}.created_at`, readTime) ?? importedAt;
  const updatedAt = optional(raw.updated_at, `${path}.updated_at`, readTime) ?? createdAt;
  const model = optional(raw.model, `${path}.model`, readString) || undefined;
  const currentLeaf = optional(raw.current_leaf_message_uuid, `${path}.current_leaf_message_uuid`, readString);

  const imported: ImportedMessage[] = [];
  const uuids = new Set<string>();
  const tools: ResultTools = new WeakMap();
  readArray(raw.chat_messages, `${path}.chat_messages`).forEach((item, j) => {
    const messagePath = `${path}.chat_messages[${j}]`;
    const message = readMessage(item, messagePath, tools);
    if (uuids.has(message.uuid)) {
      throw new MalformedImport(`${messagePath}.uuid`, `message uuid "${message.uuid}" appears twice in one conversation`);
    }
    uuids.add(message.uuid);
    imported.push(message);
  });

  const byUuid = new Map(imported.map((m) => [m.uuid, m]));
  const { nodes, current } = messageTree(imported, currentLeaf);
  const conversationId = `claude:${sourceId}`;
  const importedId = (uuid: string) => `${conversationId}/${uuid}`;
  const nodeMessages = nodes.map(({ id: uuid, parent }, seq): StoredMessage => {
    const source = byUuid.get(uuid)!;
    const message: StoredMessage = {
      id: importedId(uuid),
      conversationId,
      seq,
      parentId: parent === null ? null : importedId(parent),
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
  const messages = wholeToolExchanges(nodeMessages, tools);
  const conversation: Conversation = {
    id: conversationId,
    title,
    createdAt,
    updatedAt,
    messageCount: messages.length,
    source: { kind: 'claude', id: sourceId },
  };
  const activeLeaf = current === undefined ? undefined : newestLeafUnder(buildTree(messages), importedId(current));
  if (activeLeaf !== undefined) conversation.activeLeafId = activeLeaf;
  return { conversation, messages };
}

/**
 * The messages to import (senders Windowpane has no role for left out), each with the one
 * it follows, and the message last shown. A tree when every message records its parent and
 * every one is reached from a first message; else (an older export, or parents that loop)
 * one branch in array order.
 */
function messageTree(messages: readonly ImportedMessage[], currentLeaf: string | undefined): { nodes: ShownNode[]; current: string | undefined } {
  const shown = (m: ImportedMessage) => m.role !== null;
  if (messages.length > 0 && messages.every((m) => m.parent !== undefined)) {
    const byUuid = new Map(messages.map((m) => [m.uuid, m]));
    const nodes = new Map<string, TreeNode>();
    // No child lists: siblings keep array order, the order they were written in.
    for (const m of messages) nodes.set(m.uuid, { id: m.uuid, parent: m.parent!, children: [] });
    const tree = shownTree(
      nodes,
      (uuid) => shown(byUuid.get(uuid)!),
      (uuid) => byUuid.get(uuid)!.createdAt,
      currentLeaf,
    );
    if (tree.reached === messages.length) return { nodes: tree.nodes, current: tree.current };
  }
  let previous: string | null = null;
  const nodes: ShownNode[] = [];
  for (const m of messages) {
    if (!shown(m)) continue;
    nodes.push({ id: m.uuid, parent: previous });
    previous = m.uuid;
  }
  return { nodes, current: undefined };
}

/** One chat message; its role is null for a sender Windowpane has no role for. */
function readMessage(value: unknown, path: string, tools: ResultTools): ImportedMessage {
  const raw = readRecord(value, path);
  const uuid = readNonEmptyString(raw.uuid, `${path}.uuid`);
  const sender = readString(raw.sender, `${path}.sender`);
  const parent = optional(raw.parent_message_uuid, `${path}.parent_message_uuid`, readString);
  const createdAt = optional(raw.created_at, `${path}.created_at`, readTime);
  if (sender !== 'human' && sender !== 'assistant') return { uuid, parent, role: null, content: [], createdAt };

  const content: ContentBlock[] = [];
  const blocks = optional(raw.content, `${path}.content`, readArray) ?? [];
  blocks.forEach((block, k) => {
    content.push(...readBlock(block, `${path}.content[${k}]`, `${uuid}#${k}`, tools));
  });
  if (content.length === 0) {
    const text = optional(raw.text, `${path}.text`, readString) ?? '';
    content.push(...textBlocks(text, `${uuid}#text`));
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

const ARTIFACT = /<antArtifact\b([^>]*)>([\s\S]*?)<\/antArtifact>|<antThinking>([\s\S]*?)<\/antThinking>/g;

/**
 * Answer text as blocks. Older exports keep claude.ai's markup in the text: an artifact
 * (`<antArtifact identifier="…" type="…" title="…">content</antArtifact>`) becomes the
 * `artifacts` call it was, with its attributes and content as arguments and the placeholder
 * for its output; `<antThinking>` becomes thinking.
 */
function textBlocks(text: string, where: string): ContentBlock[] {
  if (text.trim() === '') return [];
  if (!text.includes('<ant')) return [{ type: 'text', text }];
  const blocks: ContentBlock[] = [];
  // The blank lines around a tag went with it.
  const pushText = (t: string) => {
    if (t.trim() !== '') blocks.push({ type: 'text', text: t.replace(/^\s*\n/, '').replace(/\n\s*$/, '') });
  };
  let at = 0;
  let n = 0;
  for (const match of text.matchAll(ARTIFACT)) {
    pushText(text.slice(at, match.index));
    at = match.index + match[0].length;
    if (match[3] !== undefined) {
      if (match[3].trim() !== '') blocks.push({ type: 'thinking', thinking: match[3].trim() });
      continue;
    }
    const input: Record<string, string> = {};
    for (const attribute of match[1]!.matchAll(/([\w-]+)="([^"]*)"/g)) input[attribute[1]!] = attribute[2]!;
    input.content = match[2]!.replace(/^\n/, '').replace(/\n$/, '');
    blocks.push({ type: 'tool_use', id: importedToolId(undefined, `${where}#artifact${n++}`), name: 'artifacts', input });
    blocks.push({ type: 'tool_result', tool_use_id: '', content: MISSING_TOOL_OUTPUT });
  }
  pushText(text.slice(at));
  return blocks;
}

/** One content block as blocks; `where` names it, for the id of a call that has none, and `tools` records each result's tool. */
function readBlock(value: unknown, path: string, where: string, tools: ResultTools): ContentBlock[] {
  const block = readRecord(value, path);
  const type = readString(block.type, `${path}.type`);
  switch (type) {
    case 'text':
      return textBlocks(readString(block.text ?? '', `${path}.text`), where);
    case 'thinking': {
      const thinking = readString(block.thinking ?? '', `${path}.thinking`);
      return thinking.trim() === '' ? [] : [{ type: 'thinking', thinking }];
    }
    case 'tool_use': {
      const name = optional(block.name, `${path}.name`, readString);
      const input = isRecord(block.input) ? block.input : block.input === undefined || block.input === null ? {} : { value: block.input };
      return [{ type: 'tool_use', id: importedToolId(block.id, where), name: importedToolName(name), input }];
    }
    case 'tool_result': {
      const name = optional(block.name, `${path}.name`, readString);
      const id = typeof block.tool_use_id === 'string' ? importedToolId(block.tool_use_id, where) : '';
      const result: ToolResultBlock = { type: 'tool_result', tool_use_id: id, content: resultText(block.content) };
      if (block.is_error === true) result.is_error = true;
      tools.set(result, name ?? 'tool');
      return [result];
    }
    default:
      return typeof block.text === 'string' ? textBlocks(block.text, where) : [];
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
