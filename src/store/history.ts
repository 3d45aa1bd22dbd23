/**
 * From stored messages to what the planner reads, and from the plan back to what the
 * transcript shows. Wire items are memoized per stored message object (stored messages
 * are immutable: an update replaces the object), so repeated plans reuse both the wire
 * objects and their cached token counts.
 */
import type { AnthropicWireMessage, FileBudget, OpenAIWireMessage, PdfSentAs, PlanItem, StoredMessage, WindowMessage } from '../core';
import { imagesToClear, loopReasoning, toAnthropicWire, toOpenAIWire, withImagesCleared } from '../core';

export type WireShape = 'anthropic' | 'openai';

const anthropicMemo = new WeakMap<StoredMessage, PlanItem<AnthropicWireMessage>[]>();
const openaiMemo = new WeakMap<StoredMessage, PlanItem<OpenAIWireMessage>[]>();
const systemMemo = new Map<string, PlanItem<OpenAIWireMessage>>();
/** Messages with images or PDFs, by the model they are priced for and how PDFs go (a model switch prices them anew). */
const imageMemo = new Map<string, WeakMap<StoredMessage, PlanItem[]>>();

function wireOf(message: StoredMessage, shape: WireShape, model = '', pdfAs: PdfSentAs = 'file'): PlanItem[] {
  if (message.content.some((block) => block.type === 'image' || block.type === 'document')) {
    const key = `${shape}\u0000${model}\u0000${pdfAs}`;
    let memo = imageMemo.get(key);
    if (!memo) {
      memo = new WeakMap();
      imageMemo.clear();
      imageMemo.set(key, memo);
    }
    let items = memo.get(message);
    if (!items)
      memo.set(message, (items = shape === 'anthropic' ? toAnthropicWire([message], model, pdfAs) : toOpenAIWire([message], undefined, model, pdfAs)));
    return items;
  }
  if (shape === 'anthropic') {
    let items = anthropicMemo.get(message);
    if (!items) anthropicMemo.set(message, (items = toAnthropicWire([message])));
    return items;
  }
  let items = openaiMemo.get(message);
  if (!items) openaiMemo.set(message, (items = toOpenAIWire([message])));
  return items;
}

/**
 * The summary in force: the newest stored summary. Older ones are superseded, because
 * each summary extends the previous one and covers everything it covered.
 */
export function activeSummary(messages: readonly StoredMessage[]): StoredMessage | undefined {
  let found: StoredMessage | undefined;
  for (const m of messages) if (m.kind === 'summary' && (!found || m.seq > found.seq)) found = m;
  return found;
}

/**
 * The ordered stored messages a request is planned from: the summary in force stands
 * where the first message it covers stood — where the plan that asked for it put its
 * slot, ahead of anything kept from inside the covered range (pinned messages, the file
 * reads `summarize` keeps) — and the messages it covers (and older summaries) are left
 * out. Empty placeholders (an answer not yet streamed) drop out in the wire mapping.
 */
export function requestOrder(messages: readonly StoredMessage[]): StoredMessage[] {
  const summary = activeSummary(messages);
  if (!summary) return messages.filter((m) => m.kind !== 'summary');
  const covered = new Set(summary.covers ?? []);
  const firstCovered = messages.findIndex((m) => covered.has(m.id));
  const out: StoredMessage[] = [];
  if (firstCovered < 0) out.push(summary);
  messages.forEach((m, i) => {
    if (i === firstCovered) out.push(summary);
    if (m.kind !== 'summary' && !covered.has(m.id)) out.push(m);
  });
  return out;
}

/**
 * How a request sends images and PDFs: the newest `keep` of them go, the model they are
 * priced for, how PDFs go (`pdfAs`), and `imagesOff` for an endpoint that refused images.
 */
export interface MediaOptions {
  keep: number;
  model: string;
  pdfAs?: PdfSentAs;
  imagesOff?: boolean;
  /** The provider's per-request limits on files (see `requestFileBudget`). */
  budget?: FileBudget;
}

/**
 * Plan items for the planner, in the active provider's wire shape; with `reasoningItems`
 * (OpenAI's Responses API) the answers of the current tool loop carry their reasoning
 * items (`loopReasoning`). Only the newest
 * `keepImages` images and PDFs go as files; older ones become a one-line placeholder, the
 * first thing left out of a request (the transcript marks them "not sent" by the same rule).
 */
export function buildHistory(
  messages: readonly StoredMessage[],
  shape: WireShape,
  system: string,
  images: MediaOptions = { keep: Infinity, model: '' },
  options: { reasoningItems?: boolean } = {},
): PlanItem[] {
  const items: PlanItem[] = [];
  if (shape === 'openai' && system.trim()) {
    let item = systemMemo.get(system);
    if (!item) {
      item = toOpenAIWire([], system)[0] as PlanItem<OpenAIWireMessage>;
      systemMemo.clear();
      systemMemo.set(system, item);
    }
    items.push(item);
  }
  const ordered = requestOrder(messages);
  const pdfAs = images.pdfAs ?? 'file';
  const cleared = imagesToClear(ordered, images.keep, images.imagesOff, images.budget);
  // OpenAI's Responses API: the current tool loop's answers go back with their reasoning items.
  const loop = shape === 'openai' && options.reasoningItems ? loopReasoning(ordered) : undefined;
  for (const message of ordered) {
    const shown = withImagesCleared(message, cleared, shape, images.model, pdfAs);
    const wire =
      shown === message
        ? wireOf(message, shape, images.model, pdfAs)
        : shape === 'anthropic'
          ? toAnthropicWire([shown], images.model, pdfAs)
          : toOpenAIWire([shown], undefined, images.model, pdfAs);
    const reasoning = loop?.get(message.id);
    for (const item of wire) {
      if (reasoning && (item.message as OpenAIWireMessage).role === 'assistant') {
        items.push({ ...item, message: { ...(item.message as OpenAIWireMessage), reasoning } });
        continue;
      }
      items.push(message.kind === 'summary' ? { ...item, covers: message.covers ?? [] } : item);
    }
  }
  return items;
}

/** Tokens of one stored message as the next request would count it. */
export function storedMessageTokens(message: StoredMessage, shape: WireShape, count: (m: WindowMessage) => number, model?: string, pdfAs?: PdfSentAs): number {
  let total = 0;
  for (const item of wireOf(message, shape, model, pdfAs)) total += count(item.message);
  return total;
}
