import { fileRefOf, fileRefTokens, type ImageWireShape } from '../images';
import type { WindowMessage } from '../messages';

/**
 * What a tokenizer reads of one message, in both wire shapes: the text pieces in
 * order, how many tool calls they include, and how many attachments (images, binary
 * documents) it carries. Attachments are counted, not read: their bytes are pixels or
 * PDF pages, and counting base64 as text would overstate them a hundredfold.
 */
export interface CountedParts {
  /** Text the model reads: message text, tool names and JSON arguments, tool results. */
  texts: string[];
  /** Anthropic `tool_use` blocks plus OpenAI `tool_calls` entries. */
  toolCalls: number;
  /** Images and non-text documents whose size is unknown. */
  attachments: number;
  /** Images Windowpane attached, whose pixels are known, so they are counted as the provider counts them. */
  images: { shape: ImageWireShape; width: number; height: number; model?: string }[];
  /** Tokens of the PDFs Windowpane attached, counted from their page texts and pages as the provider counts them. */
  pdfTokens: number;
  /** Tokens of the reasoning items an OpenAI answer goes back with (their reasoning, which the ciphertext does not show), and of a compaction item. */
  reasoningTokens: number;
}

/** Reads the countable parts of a message; never throws on unknown block shapes. */
export function countedParts(message: WindowMessage): CountedParts {
  const parts: CountedParts = { texts: [], toolCalls: 0, attachments: 0, images: [], pdfTokens: 0, reasoningTokens: 0 };
  collectContent(message.content, parts);
  if (Array.isArray(message.reasoning)) {
    for (const item of message.reasoning as unknown[]) {
      if (!isRecord(item)) continue;
      if (typeof item.tokens === 'number' && Number.isFinite(item.tokens) && item.tokens > 0) parts.reasoningTokens += item.tokens;
    }
  }
  if (
    isRecord(message.compaction) &&
    typeof message.compaction.tokens === 'number' &&
    Number.isFinite(message.compaction.tokens) &&
    message.compaction.tokens > 0
  ) {
    parts.reasoningTokens += message.compaction.tokens;
  }
  if (Array.isArray(message.tool_calls)) {
    for (const call of message.tool_calls as unknown[]) {
      parts.toolCalls += 1;
      const fn = isRecord(call) && isRecord(call.function) ? call.function : undefined;
      if (fn === undefined) {
        parts.texts.push(JSON.stringify(call) ?? '');
        continue;
      }
      if (typeof fn.name === 'string') parts.texts.push(fn.name);
      if (typeof fn.arguments === 'string') parts.texts.push(fn.arguments);
    }
  }
  return parts;
}

function collectContent(content: unknown, parts: CountedParts): void {
  if (content == null) return;
  if (typeof content === 'string') {
    if (content.length > 0) parts.texts.push(content);
    return;
  }
  if (!Array.isArray(content)) {
    parts.texts.push(JSON.stringify(content) ?? '');
    return;
  }
  for (const block of content as unknown[]) collectBlock(block, parts);
}

function collectBlock(block: unknown, parts: CountedParts): void {
  if (typeof block === 'string') {
    parts.texts.push(block);
    return;
  }
  if (!isRecord(block)) return;
  const ref = fileRefOf(block);
  if (ref?.pdf) {
    parts.pdfTokens += fileRefTokens(block, ref);
    return;
  }
  switch (block.type) {
    case 'text':
    case 'input_text':
    case 'output_text':
      if (typeof block.text === 'string') parts.texts.push(block.text);
      return;
    case 'thinking':
      // Counted although some models drop earlier turns' thinking: an over-estimate
      // only trims a little early, an under-estimate overflows.
      if (typeof block.thinking === 'string') parts.texts.push(block.thinking);
      return;
    case 'redacted_thinking':
      if (typeof block.data === 'string') parts.texts.push(block.data);
      return;
    case 'compaction':
      // The summary is what the model reads; the opaque fields beside it are not text it counts.
      if (typeof block.content === 'string') parts.texts.push(block.content);
      return;
    case 'tool_use':
    case 'server_tool_use':
      parts.toolCalls += 1;
      if (typeof block.name === 'string') parts.texts.push(block.name);
      parts.texts.push(JSON.stringify(block.input ?? {}));
      return;
    case 'tool_result':
      collectContent(block.content, parts);
      return;
    case 'image':
    case 'image_url': {
      const ref = fileRefOf(block);
      if (ref) parts.images.push({ shape: block.type === 'image' ? 'anthropic' : 'openai', width: ref.width, height: ref.height, model: ref.model });
      else parts.attachments += 1;
      return;
    }
    case 'input_image':
    case 'input_audio':
    case 'file':
      parts.attachments += 1;
      return;
    case 'document': {
      const source = isRecord(block.source) ? block.source : undefined;
      if (source?.type === 'text' && typeof source.data === 'string') parts.texts.push(source.data);
      else parts.attachments += 1;
      return;
    }
    default:
      parts.texts.push(JSON.stringify(block));
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
