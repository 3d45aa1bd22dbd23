/**
 * Reads ChatGPT's data export (`conversations.json`): an array of conversations whose
 * messages form a tree in `mapping` (`{ id, message, parent, children }` nodes, with
 * `current_node` the leaf the user last saw).
 *
 * Every branch is kept, in one conversation per ChatGPT conversation: a regenerated answer
 * or an edited prompt is another version of that message, and the branch the user last saw
 * (ending at `current_node`) is the one shown. Hidden nodes (system prompts, custom
 * instructions, browsing noise, reasoning recaps) are left out, the messages after them
 * following the message before. ChatGPT's own tools (Python, browsing, DALL·E) ran on
 * OpenAI's side and cannot be replayed, so their calls and outputs become labelled text;
 * `thoughts` become thinking blocks. Ids derive from ChatGPT's, so importing the same file
 * twice yields the same ids and the second import is recognised.
 */
import { buildTree, newestLeafUnder } from '../branches';
import type { ContentBlock, Conversation, StoredMessage } from '../conversation';
import type { ConversationRecords, ImportParseResult } from './exportFormat';
import { fence, quote } from './markdownText';
import { countImported, shownTree, type TreeNode } from './conversationTree';
import { MalformedImport, isRecord, optional, readArray, readFiniteNumber, readNonEmptyString, readRecord, readString, type JsonRecord } from './readJson';

interface ImportedNode {
  role: 'user' | 'assistant';
  content: ContentBlock[];
  createdAt: number | undefined;
  model: string | undefined;
  status: StoredMessage['status'];
}

/** Tool output kinds ChatGPT shows in the transcript; other tool messages are internal. */
const VISIBLE_TOOL_CONTENT = new Set(['execution_output', 'tether_quote', 'multimodal_text']);
/** Content that is internal state, not conversation. */
const HIDDEN_CONTENT = new Set(['reasoning_recap', 'tether_browsing_display', 'user_editable_context', 'model_editable_context']);

/**
 * Canonical records from a parsed ChatGPT `conversations.json` (an array, or an object
 * with a `conversations` array). `importedAt` (epoch ms) stands in for missing times.
 */
export function parseChatGptExport(data: unknown, importedAt: number): ImportParseResult {
  try {
    const list = Array.isArray(data) ? data : readArray(readRecord(data, 'the file').conversations, 'conversations');
    let total = 0;
    const conversations = list.map((item, i) => {
      const records = readConversation(item, `conversation ${i + 1}`, importedAt);
      total = countImported(total, records, `conversation ${i + 1}`);
      return records;
    });
    return { ok: true, value: { format: 'chatgpt', conversations } };
  } catch (error) {
    if (error instanceof MalformedImport) {
      return {
        ok: false,
        error: { code: 'import_invalid', message: `This ChatGPT export could not be read, so nothing was imported: ${error.message}.` },
      };
    }
    throw error;
  }
}

/**
 * One conversation of a ChatGPT export (`index` counts from 0), for importing conversation
 * by conversation. Throws `MalformedImport` naming the first bad field.
 */
export function readChatGptConversation(value: unknown, index: number, importedAt: number): ConversationRecords {
  return readConversation(value, `conversation ${index + 1}`, importedAt);
}

function readConversation(value: unknown, path: string, importedAt: number): ConversationRecords {
  const raw = readRecord(value, path);
  const sourceId = readNonEmptyString(raw.id ?? raw.conversation_id, `${path}.id`);
  const title = optional(raw.title, `${path}.title`, readString)?.trim() || 'Untitled conversation';
  const createTime = optional(raw.create_time, `${path}.create_time`, readFiniteNumber);
  const updateTime = optional(raw.update_time, `${path}.update_time`, readFiniteNumber);
  const createdAt = createTime !== undefined ? toMs(createTime) : importedAt;
  const updatedAt = updateTime !== undefined ? toMs(updateTime) : createdAt;
  const currentNode = optional(raw.current_node, `${path}.current_node`, readString);
  const mapping = readRecord(raw.mapping, `${path}.mapping`);

  const nodes = new Map<string, TreeNode>();
  const sourceMessages = new Map<string, JsonRecord>();
  for (const [key, nodeValue] of Object.entries(mapping)) {
    const nodePath = `${path}.mapping["${key}"]`;
    const node = readRecord(nodeValue, nodePath);
    const parent = optional(node.parent, `${nodePath}.parent`, readString) ?? null;
    const children = (optional(node.children, `${nodePath}.children`, readArray) ?? []).map((child, k) => readString(child, `${nodePath}.children[${k}]`));
    nodes.set(key, { id: key, parent, children });
    const message = optional(node.message, `${nodePath}.message`, readRecord);
    if (message) sourceMessages.set(key, message);
  }

  const converted = new Map<string, ImportedNode | null>();
  const visibleNode = (id: string): ImportedNode | null => {
    if (!converted.has(id)) {
      const message = sourceMessages.get(id);
      converted.set(id, message ? convertMessage(message, `${path}.mapping["${id}"].message`) : null);
    }
    return converted.get(id)!;
  };

  const tree = shownTree(
    nodes,
    (id) => visibleNode(id) !== null,
    (id) => visibleNode(id)?.createdAt,
    currentNode,
  );
  if (tree.reached === 0 && nodes.size > 0) throw new MalformedImport(`${path}.mapping`, `${path}.mapping has no starting message (its messages form a loop)`);

  const conversationId = `chatgpt:${sourceId}`;
  const importedId = (id: string) => `${conversationId}/${id}`;
  const messages = tree.nodes.map(({ id, parent }, seq): StoredMessage => {
    const node = visibleNode(id)!;
    const message: StoredMessage = {
      id: importedId(id),
      conversationId,
      seq,
      parentId: parent === null ? null : importedId(parent),
      role: node.role,
      kind: 'message',
      content: node.content,
      createdAt: node.createdAt ?? createdAt,
      status: node.status,
    };
    if (node.role === 'assistant') {
      message.provider = 'openai';
      if (node.model) message.model = node.model;
    }
    return message;
  });
  const conversation: Conversation = {
    id: conversationId,
    title,
    createdAt,
    updatedAt,
    messageCount: messages.length,
    source: { kind: 'chatgpt', id: sourceId },
  };
  // The branch the user last saw, to its end: current_node may be hidden, or not a leaf.
  const activeLeaf = tree.current === undefined ? undefined : newestLeafUnder(buildTree(messages), importedId(tree.current));
  if (activeLeaf !== undefined) conversation.activeLeafId = activeLeaf;
  return { conversation, messages };
}

/** The visible message a mapping node holds, or null for hidden and empty nodes. */
function convertMessage(message: JsonRecord, path: string): ImportedNode | null {
  const author = readRecord(message.author, `${path}.author`);
  const authorRole = readString(author.role, `${path}.author.role`);
  const authorName = optional(author.name, `${path}.author.name`, readString);
  const content = optional(message.content, `${path}.content`, readRecord);
  if (!content) return null;
  const contentType = readString(content.content_type, `${path}.content.content_type`);
  const metadata = optional(message.metadata, `${path}.metadata`, readRecord) ?? {};
  const recipient = optional(message.recipient, `${path}.recipient`, readString) ?? 'all';

  if (metadata.is_visually_hidden_from_conversation === true) return null;
  if (HIDDEN_CONTENT.has(contentType)) return null;
  if (authorRole !== 'user' && authorRole !== 'assistant' && authorRole !== 'tool') return null;
  if (authorRole === 'tool' && !VISIBLE_TOOL_CONTENT.has(contentType)) return null;

  const blocks: ContentBlock[] = [];
  if (contentType === 'thoughts') {
    const thoughts = readArray(content.thoughts ?? [], `${path}.content.thoughts`);
    const text = thoughts
      .map((thought) => (isRecord(thought) ? [thought.summary, thought.content].filter((t) => typeof t === 'string' && t).join('\n\n') : ''))
      .filter((t) => t !== '')
      .join('\n\n');
    if (text) blocks.push({ type: 'thinking', thinking: text });
  } else {
    const text = contentText(content, contentType, path);
    if (text.trim() !== '') {
      if (authorRole === 'tool') {
        blocks.push({ type: 'text', text: `**Tool output**${authorName ? ` (\`${authorName}\`)` : ''}:\n\n${text}` });
      } else if (authorRole === 'assistant' && recipient !== 'all') {
        blocks.push({ type: 'text', text: `**Tool call** to \`${recipient}\`:\n\n${text}` });
      } else {
        blocks.push({ type: 'text', text });
      }
    }
  }
  if (blocks.length === 0) return null;

  const createTime = optional(message.create_time, `${path}.create_time`, readFiniteNumber);
  const model = typeof metadata.model_slug === 'string' && metadata.model_slug ? metadata.model_slug : undefined;
  return {
    role: authorRole === 'user' ? 'user' : 'assistant',
    content: blocks,
    createdAt: createTime === undefined ? undefined : toMs(createTime),
    model,
    status: message.status === 'in_progress' ? 'interrupted' : 'complete',
  };
}

/** The readable text of one message's content, by ChatGPT content type. */
function contentText(content: JsonRecord, contentType: string, path: string): string {
  switch (contentType) {
    case 'code': {
      const language = typeof content.language === 'string' && content.language !== 'unknown' ? content.language : '';
      const code = readString(content.text ?? '', `${path}.content.text`);
      return code.trim() ? fence(code, language) : '';
    }
    case 'execution_output': {
      const output = readString(content.text ?? '', `${path}.content.text`);
      return output.trim() ? fence(output, '') : '';
    }
    case 'tether_quote': {
      const quoted = typeof content.text === 'string' ? content.text : '';
      const source = [content.title, content.url].filter((s) => typeof s === 'string' && s).join(' — ');
      return quote(source ? `${quoted}\n\n— ${source}` : quoted);
    }
    default: {
      if (content.parts !== undefined) {
        return readArray(content.parts, `${path}.content.parts`)
          .map(partText)
          .filter((t) => t !== '')
          .join('\n\n');
      }
      return typeof content.text === 'string' ? content.text : '';
    }
  }
}

/** One element of `content.parts`: text, or a placeholder for media the export holds as files. */
function partText(part: unknown): string {
  if (typeof part === 'string') return part;
  if (!isRecord(part)) return '';
  if (typeof part.text === 'string') return part.text;
  switch (part.content_type) {
    case 'image_asset_pointer':
      return '[Image — not included in the export file]';
    case 'audio_asset_pointer':
    case 'real_time_user_audio_video_asset_pointer':
      return '[Audio — not included in the export file]';
    default:
      return typeof part.content_type === 'string' ? `[${part.content_type} — not included in the export file]` : '';
  }
}

/** ChatGPT times are float seconds since the epoch. */
function toMs(seconds: number): number {
  return Math.round(seconds * 1000);
}
