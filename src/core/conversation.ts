import type { AppliedContextEdit } from './providerContext';

/**
 * The canonical, provider-neutral records Windowpane stores. Content uses blocks close
 * to Anthropic's (text, tool_use, tool_result, thinking); providers map them to and from
 * each wire shape. Nothing here is ever deleted by windowing: a plan is a view.
 */

export type ProviderId = 'anthropic' | 'openai' | 'openai-compatible' | 'demo';

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ToolUseBlock {
  type: 'tool_use';
  /** Provider-assigned call id (Anthropic `toolu_…`, OpenAI `call_…`). */
  id: string;
  name: string;
  input: unknown;
}

export interface ToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  content: string;
  is_error?: boolean;
  /**
   * Images the tool returned (an MCP tool's image content), stored as files like the user's
   * images and sent after `content` where the API takes images in a tool result (Anthropic,
   * OpenAI's Responses API); elsewhere each goes as a line naming it. Absent: none.
   */
  images?: ImageBlock[];
}

/**
 * Extended thinking; `signature` must be sent back unchanged on the next request. From
 * OpenAI's Responses API, `thinking` is the reasoning summary and `reasoningItem` the item
 * that carries the reasoning itself, encrypted, sent back inside a tool loop.
 */
export interface ThinkingBlock {
  type: 'thinking';
  thinking: string;
  signature?: string;
  reasoningItem?: ReasoningItem;
}

/** An OpenAI Responses API reasoning item, as `store: false` returns it: only OpenAI can read `encryptedContent`. */
export interface ReasoningItem {
  /** The item's id (`rs_…`). */
  id: string;
  encryptedContent: string;
}

export interface RedactedThinkingBlock {
  type: 'redacted_thinking';
  data: string;
}

/**
 * The provider's own summary of everything before it (server-side compaction), at the start
 * of the answer it was made for. The provider reads nothing that came before it, so a request
 * that can send it sends it in place of all that, exactly as it came back.
 */
export interface CompactionBlock {
  type: 'compaction';
  /** The provider that wrote it: only that provider can read it. */
  provider: 'anthropic' | 'openai';
  /** The summary as text where the provider returns one (Anthropic); null when it is opaque (OpenAI's is encrypted) or failed. */
  summary: string | null;
  /**
   * The block's or item's other fields as returned, sent back unchanged: Anthropic's
   * `encrypted_content`, `signature`, `tool_changes`; OpenAI's `id` and `encrypted_content`.
   * JSON values only.
   */
  fields: Record<string, unknown>;
  /** Input tokens of the context it replaced, as the provider reported them (absent: not reported). */
  compactedTokens?: number;
  /** Tokens the provider spent writing it (its output), where reported: about what it costs when sent back. */
  summaryTokens?: number;
}

/**
 * An MCP tool call the provider ran itself through its connector, with what it returned: shown
 * as a call the provider made, and sent back as text (`providerToolText`). Outside data: every
 * field was checked and cut to size when read.
 */
export interface ProviderToolBlock {
  type: 'provider_tool';
  provider: 'anthropic' | 'openai';
  /** The provider's id of the call (`mcptoolu_…`, `mcp_…`); may be empty. */
  id: string;
  /** The server as the request named it (`mcp_servers[].name`, `server_label`). */
  server: string;
  /** The tool's name on the server. */
  name: string;
  input: unknown;
  /** The result's text (or the error's); never rendered as HTML. */
  output: string;
  isError: boolean;
}

/**
 * An image the user sent with a message. Its bytes are a Blob stored apart from the
 * message (persistence's `files` store, under `fileId`) and are encoded only when a
 * request is built, so a message record stays small however large the image.
 */
export interface ImageBlock {
  type: 'image';
  /** Key of the stored file. */
  fileId: string;
  /** The file's name as the user chose it ("screenshot.png"; "Pasted image.png" when pasted). */
  name: string;
  /** `image/png`, `image/jpeg`, `image/gif` or `image/webp`. */
  mediaType: string;
  /** Pixels of the stored image (after any downscale). */
  width: number;
  height: number;
  /** Bytes of the stored image. */
  bytes: number;
  /** The image as the user chose it, when it was downscaled before it was stored. */
  original?: { width: number; height: number; bytes: number };
}

/**
 * A PDF the user sent with a message. Like an image, its bytes are a stored file
 * (`fileId`) and its page texts are stored with it; the message keeps only what it takes
 * to show, count and clear it.
 */
export interface DocumentBlock {
  type: 'document';
  /** Key of the stored file. */
  fileId: string;
  /** The file's name as the user chose it ("report.pdf"). */
  name: string;
  mediaType: 'application/pdf';
  /** Bytes of the stored PDF. */
  bytes: number;
  /** Pages the PDF has (≥ 1). */
  pages: number;
  /** Estimated tokens of each page's extracted text, in page order (absent: counted as empty pages). */
  pageTokens?: number[];
}

export type ContentBlock =
  TextBlock | ToolUseBlock | ToolResultBlock | ThinkingBlock | RedactedThinkingBlock | ImageBlock | DocumentBlock | CompactionBlock | ProviderToolBlock;

/** Token usage as the provider reported it for one response. */
export interface Usage {
  inputTokens: number;
  outputTokens: number;
  /** Tokens read from the prompt cache (priced at the cache-read rate). */
  cacheReadTokens: number;
  /** Tokens written to the prompt cache (priced at the cache-write rate). */
  cacheWriteTokens: number;
  /**
   * The part of `outputTokens` the model spent reasoning, when the provider itemizes it
   * (OpenAI's `reasoning_tokens`); never added to `outputTokens`, which already holds it.
   * Absent when not reported: Anthropic bills thinking inside `output_tokens` without a count of its own.
   */
  reasoningTokens?: number;
  /**
   * What the provider's compaction of this request cost, when it compacted (Anthropic reports
   * it apart from the top-level usage, and bills it on top): the context it read and the
   * summary it wrote, in the same four counts. Absent when nothing was compacted.
   */
  compaction?: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };
}

/**
 * - `message`: an ordinary user or assistant turn.
 * - `summary`: a "[Conversation Summary]" standing in for the messages listed in `covers`.
 */
export type MessageKind = 'message' | 'summary';

/**
 * - `complete`: finished normally.
 * - `streaming`: being written now.
 * - `stopped`: the user pressed Stop; the partial text is kept.
 * - `interrupted`: the tab closed or reloaded mid-stream; the partial text is kept.
 * - `error`: the request failed; `error` says why.
 */
export type MessageStatus = 'complete' | 'streaming' | 'stopped' | 'interrupted' | 'error';

export interface StoredMessage {
  id: string;
  conversationId: string;
  /** Position in the conversation, strictly increasing in the order messages were written: a message's seq is above its parent's. */
  seq: number;
  /**
   * The message this one follows on its branch (see branches.ts); null for a first message.
   * Editing a message or regenerating an answer adds a sibling: a new message with the same
   * parent. Absent in records written before conversations had branches, which follow the
   * message before them in `seq` order.
   */
  parentId?: string | null;
  role: 'user' | 'assistant';
  kind: MessageKind;
  content: ContentBlock[];
  createdAt: number;
  status: MessageStatus;
  /** Never evicted by any strategy. */
  pinned?: boolean;
  /** For `summary`: the ids of the messages this summary replaces, in order. */
  covers?: string[];
  /** Model that produced an assistant message. */
  model?: string;
  provider?: ProviderId;
  usage?: Usage;
  error?: { code: string; message: string };
  /**
   * The key of the prefix of the request this answer was written for (system, tools and
   * messages, see `keepValidThinking`): its thinking goes back only under the same prefix.
   * Read as untrusted: anything but a string means none.
   */
  thinkingPrefix?: string;
  /**
   * Milliseconds from the answer's first thinking delta to its first answer text (or tool
   * call, or its end): how long it was seen thinking. Absent when it did not think, or the
   * stream ended before the thinking did. Read as untrusted: anything but a whole count means none.
   */
  thinkingMs?: number;
  /**
   * What the provider said it cleared from the request this answer was written for
   * (Anthropic's context editing). Read as untrusted: what is not a valid edit is left out.
   */
  contextEdits?: AppliedContextEdit[];
}

export interface Conversation {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  /** Number of stored messages, kept in step with the messages store. */
  messageCount: number;
  /** Per-conversation overrides of the global settings (model, strategy, knobs). */
  overrides?: Record<string, unknown>;
  /** The last message of the branch the user last had open; absent: the newest message. */
  activeLeafId?: string;
  /** Present when imported, so importing the same file again does not duplicate it. */
  source?: { kind: 'windowpane' | 'chatgpt' | 'claude'; id: string };
}

/** `value` when it is a whole number ≥ 0 (a token count, a duration in ms), else undefined. */
export function wholeCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** `usage.reasoningTokens` when it is a whole count within `outputTokens`, else undefined. */
export function reasoningTokensOf(usage: Usage | undefined): number | undefined {
  const tokens = wholeCount(usage?.reasoningTokens);
  return tokens !== undefined && tokens <= usage!.outputTokens ? tokens : undefined;
}

/** Concatenated text of a message's text blocks (tool calls and thinking excluded). */
export function messageText(message: Pick<StoredMessage, 'content'>): string {
  let out = '';
  for (const block of message.content) {
    if (block.type === 'text') out += (out ? '\n' : '') + block.text;
  }
  return out;
}
