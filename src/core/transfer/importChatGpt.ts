/**
 * Reads ChatGPT's data export (`conversations.json`): an array of conversations whose
 * messages form a tree in `mapping` (`{ id, message, parent, children }` nodes, with
 * `current_node` the leaf the user last saw).
 *
 * Every branch is kept, in one conversation per ChatGPT conversation: a regenerated answer
 * or an edited prompt is another version of that message, and the branch the user last saw
 * (ending at `current_node`) is the one shown. Hidden nodes (system prompts, custom
 * instructions, browsing noise, reasoning recaps) are left out, the messages after them
 * following the message before. ChatGPT's own tools (Python, browsing, DALL·E, canvas)
 * ran on OpenAI's side: each call and its output become a tool exchange, shown as a
 * collapsed tool row (see importedTools.ts), with the export's internal markers (citation
 * marks, `<<ImageDisplayed>>`) taken out or replaced by placeholders; `thoughts` become
 * thinking blocks. Ids derive from ChatGPT's, so importing the same file
 * twice yields the same ids and the second import is recognised.
 */
import { buildTree, newestLeafUnder } from '../branches';
import type { ContentBlock, Conversation, StoredMessage, ToolResultBlock } from '../conversation';
import type { ConversationRecords } from './exportFormat';
import { fence } from './markdownText';
import { importedToolId, importedToolName, wholeToolExchanges, type ResultTools } from './importedTools';
import { shownTree, type TreeNode } from './conversationTree';
import { MalformedImport, isRecord, optional, readArray, readFiniteNumber, readNonEmptyString, readRecord, readString, type JsonRecord } from './readJson';

interface ImportedNode {
  role: 'user' | 'assistant';
  content: ContentBlock[];
  createdAt: number | undefined;
  model: string | undefined;
  status: StoredMessage['status'];
}

/** Content that is internal state, not conversation. */
const HIDDEN_CONTENT = new Set(['reasoning_recap', 'user_editable_context', 'model_editable_context']);
/** What stands in for an image the export holds as a file (or not at all). */
const IMAGE_PLACEHOLDER = '[Image — not included in the export file]';

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
  const tools: ResultTools = new WeakMap();
  const visibleNode = (id: string): ImportedNode | null => {
    if (!converted.has(id)) {
      const message = sourceMessages.get(id);
      converted.set(id, message ? convertMessage(message, `${path}.mapping["${id}"].message`, `${sourceId}/${id}`, tools) : null);
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
  const nodeMessages = tree.nodes.map(({ id, parent }, seq): StoredMessage => {
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
  const messages = wholeToolExchanges(nodeMessages, tools);
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

/**
 * The visible message a mapping node holds, or null for hidden and empty nodes. A message
 * the assistant addressed to a tool (`recipient`) is a tool call; a tool's message is its
 * output, a result whose call is found later (`wholeToolExchanges`) and whose tool is
 * recorded in `tools`. `where` names the node, for the ids of the calls it makes.
 */
function convertMessage(message: JsonRecord, path: string, where: string, tools: ResultTools): ImportedNode | null {
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

  const blocks: ContentBlock[] = [];
  if (authorRole === 'tool') {
    const output = toolOutput(content, contentType, metadata, path);
    if (output === null) return null;
    const result: ToolResultBlock = { type: 'tool_result', tool_use_id: '', content: output.text };
    if (output.isError) result.is_error = true;
    tools.set(result, authorName ?? 'tool');
    blocks.push(result);
  } else if (authorRole === 'assistant' && recipient !== 'all') {
    const text = contentType === 'code' ? readString(content.text ?? '', `${path}.content.text`) : contentText(content, contentType, path);
    blocks.push({ type: 'tool_use', id: importedToolId(undefined, where), name: importedToolName(recipient), input: callInput(text, recipient) });
  } else if (contentType === 'thoughts') {
    const thoughts = readArray(content.thoughts ?? [], `${path}.content.thoughts`);
    const text = thoughts
      .map((thought) => (isRecord(thought) ? [thought.summary, thought.content].filter((t) => typeof t === 'string' && t).join('\n\n') : ''))
      .filter((t) => t !== '')
      .join('\n\n');
    if (text) blocks.push({ type: 'thinking', thinking: text });
  } else {
    const raw = contentText(content, contentType, path);
    const text = authorRole === 'assistant' ? withoutMarkers(raw) : raw;
    if (text.trim() !== '') blocks.push({ type: 'text', text });
  }
  if (blocks.length === 0) return null;

  const createTime = optional(message.create_time, `${path}.create_time`, readFiniteNumber);
  const model = typeof metadata.model_slug === 'string' && metadata.model_slug ? metadata.model_slug : undefined;
  return {
    role: authorRole === 'assistant' ? 'assistant' : 'user',
    content: blocks,
    createdAt: createTime === undefined ? undefined : toMs(createTime),
    model,
    status: message.status === 'in_progress' ? 'interrupted' : 'complete',
  };
}

/** A call's arguments: the JSON object ChatGPT sent (DALL·E, web.run, canvas), else the code or command as written. */
function callInput(text: string, recipient: string): Record<string, unknown> {
  const trimmed = text.trim();
  if (trimmed.startsWith('{')) {
    try {
      const parsed: unknown = JSON.parse(trimmed);
      if (isRecord(parsed)) return parsed;
    } catch {
      // Not JSON after all: kept as written below.
    }
  }
  return recipient === 'python' ? { code: text } : { input: text };
}

/**
 * A tool message's output as readable text, or null when it shows nothing (the empty
 * "finished browsing" marker). Code Interpreter's `<<ImageDisplayed>>` becomes the image
 * placeholder; a run that raised, or a system error, is an error result.
 */
function toolOutput(content: JsonRecord, contentType: string, metadata: JsonRecord, path: string): { text: string; isError: boolean } | null {
  switch (contentType) {
    case 'execution_output': {
      const output = readString(content.text ?? '', `${path}.content.text`);
      const aggregate = isRecord(metadata.aggregate_result) ? metadata.aggregate_result : {};
      const failed = (typeof aggregate.status === 'string' && aggregate.status.startsWith('failed')) || isRecord(aggregate.in_kernel_exception);
      return { text: output.replaceAll('<<ImageDisplayed>>', IMAGE_PLACEHOLDER), isError: failed };
    }
    case 'tether_browsing_display': {
      const text = [content.result, content.summary].filter((t): t is string => typeof t === 'string' && t.trim() !== '').join('\n\n');
      return text ? { text: readableSources(text), isError: false } : null;
    }
    case 'tether_quote': {
      const quoted = typeof content.text === 'string' ? content.text : '';
      const source = [content.title, content.url].filter((s) => typeof s === 'string' && s).join(' — ');
      return { text: source ? `${source}\n\n${quoted}` : quoted, isError: false };
    }
    case 'system_error':
      return { text: [content.name, content.text].filter((t) => typeof t === 'string' && t).join(': ') || 'The tool failed.', isError: true };
    default: {
      const text = contentText(content, contentType, path).replaceAll('<<ImageDisplayed>>', IMAGE_PLACEHOLDER);
      return text.trim() === '' ? null : { text: withoutMarkers(text), isError: false };
    }
  }
}

/**
 * Answer text without ChatGPT's citation markup, which its own page turns into source
 * chips: `【11†source】`, and the private-use-character spans of newer exports
 * (`\ue200cite\ue202turn0search0\ue201`; an `entity` span keeps the name it shows).
 */
function withoutMarkers(text: string): string {
  return text
    .replace(/[ \t]*【[^【】\n]*†[^【】\n]*】/g, '')
    .replace(/[ \t]*\ue200([^\ue200\ue201]*)\ue201/g, (span: string, body: string) => {
      const [kind, first] = body.split('\ue202');
      if (kind !== 'entity' || first === undefined) return '';
      try {
        const entity: unknown = JSON.parse(first);
        const name = Array.isArray(entity) ? entity[1] : undefined;
        return typeof name === 'string' ? span.slice(0, span.indexOf('\ue200')) + name : '';
      } catch {
        return '';
      }
    })
    .replace(/[\ue200-\ue204]/g, '')
    .replaceAll('<<ImageDisplayed>>', IMAGE_PLACEHOLDER)
    .trimEnd();
}

/** Search results as ChatGPT's browser listed them (`【0†Title†example.com】`), with plain numbered sources. */
function readableSources(text: string): string {
  return text.replace(
    /【(\d+)†([^†【】\n]*)(?:†([^【】\n]*))?】/g,
    (_m, n: string, title: string, site?: string) => `[${n}] ${title}${site ? ` (${site})` : ''}`,
  );
}

/** The readable text of one message's content, by ChatGPT content type. */
function contentText(content: JsonRecord, contentType: string, path: string): string {
  switch (contentType) {
    case 'code': {
      const language = typeof content.language === 'string' && content.language !== 'unknown' ? content.language : '';
      const code = readString(content.text ?? '', `${path}.content.text`);
      return code.trim() ? fence(code, language) : '';
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
      return IMAGE_PLACEHOLDER;
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
