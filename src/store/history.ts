/**
 * From stored messages to what the planner reads, and from the plan back to what the
 * transcript shows. Wire items are memoized per stored message object (stored messages
 * are immutable: an update replaces the object), so repeated plans reuse both the wire
 * objects and their cached token counts.
 */
import type { AnthropicWireMessage, FileBudget, OpenAIWireMessage, PdfSentAs, PlanItem, StoredMessage, WindowMessage } from '../core';
import { compactionCut, compactionOf, imagesToClear, loopReasoning, toAnthropicWire, toOpenAIWire, withImagesCleared } from '../core';

export type WireShape = 'anthropic' | 'openai';

const anthropicMemo = new WeakMap<StoredMessage, PlanItem<AnthropicWireMessage>[]>();
const openaiMemo = new WeakMap<StoredMessage, PlanItem<OpenAIWireMessage>[]>();
const systemMemo = new Map<string, PlanItem<OpenAIWireMessage>>();
/** Messages with images or PDFs, by the model they are priced for and how PDFs go (a model switch prices them anew). */
const imageMemo = new Map<string, WeakMap<StoredMessage, PlanItem[]>>();

const carriesFiles = (message: StoredMessage) =>
  message.content.some((block) => block.type === 'image' || block.type === 'document' || (block.type === 'tool_result' && (block.images?.length ?? 0) > 0));

function wireOf(message: StoredMessage, shape: WireShape, model = '', pdfAs: PdfSentAs = 'file', toolImages = false): PlanItem[] {
  if (carriesFiles(message)) {
    const key = `${shape}\u0000${model}\u0000${pdfAs}\u0000${String(toolImages)}`;
    let memo = imageMemo.get(key);
    if (!memo) {
      memo = new WeakMap();
      imageMemo.clear();
      imageMemo.set(key, memo);
    }
    let items = memo.get(message);
    if (!items)
      memo.set(
        message,
        (items = shape === 'anthropic' ? toAnthropicWire([message], model, pdfAs) : toOpenAIWire([message], undefined, model, pdfAs, toolImages)),
      );
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
 * The stored messages the provider compacted, for a request that sends its compactions
 * (`provider`): those before the answer that holds the newest compaction it can read, in the
 * order given. Empty when there is none or none is sent.
 */
export function compactedMessages(messages: readonly StoredMessage[], provider: 'anthropic' | 'openai' | undefined): readonly StoredMessage[] {
  if (!provider) return [];
  const cut = compactionCut(messages, provider);
  return cut > 0 ? messages.slice(0, cut) : [];
}

/**
 * What the provider reads nothing before opens the request: the APIs and the planner want a
 * user message first, and the API ignores whatever precedes a compaction, so a short user
 * message goes first under the answer's own id (kept or left out with it).
 */
const COMPACTION_OPENER = 'Continue from the summary of our conversation.';

/** By shape: the answer's wire items are themselves memoized per stored message, so these stay valid with it. */
const compactionMemo = { anthropic: new WeakMap<StoredMessage, PlanItem[]>(), openai: new WeakMap<StoredMessage, PlanItem[]>() };

/**
 * The wire items of the answer a request opens with: Anthropic, the opener, then the answer
 * with its compaction block first, as it came; OpenAI, the opener standing for the compaction
 * item (see `OpenAIWireMessage.compaction`), then the answer without it.
 */
function compactionHolderItems(message: StoredMessage, items: readonly PlanItem[], shape: WireShape): PlanItem[] {
  const memo = compactionMemo[shape].get(message);
  if (memo) return memo;
  const block = compactionOf(message, shape === 'anthropic' ? 'anthropic' : 'openai');
  if (!block) return [...items];
  const opener: PlanItem = { id: message.id, message: { role: 'user', content: COMPACTION_OPENER }, kind: 'message' };
  let out: PlanItem[];
  if (shape === 'anthropic') {
    const wire = { ...block.fields, type: 'compaction', content: block.summary };
    const answer = items.find((item) => item.message.role === 'assistant') as PlanItem<AnthropicWireMessage> | undefined;
    const rest = answer ? answer.message.content : [];
    const content = typeof rest === 'string' ? [wire, { type: 'text', text: rest }] : [wire, ...rest];
    out = [opener, { id: message.id, message: { role: 'assistant', content }, kind: 'message' }, ...items.filter((item) => item !== answer)];
  } else {
    const tokens = block.summaryTokens ?? Math.ceil(JSON.stringify(block.fields).length / 4);
    const standIn: OpenAIWireMessage = { role: 'user', content: COMPACTION_OPENER, compaction: { item: { ...block.fields }, tokens } };
    out = [{ ...opener, message: standIn }, ...items];
  }
  compactionMemo[shape].set(message, out);
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
  /** OpenAI shape: a tool result's images go as image parts (the Responses API), not as a line each (Chat Completions). */
  toolImages?: boolean;
}

/**
 * Plan items for the planner, in the active provider's wire shape; with `reasoningItems`
 * (OpenAI's Responses API) the answers of the current tool loop carry their reasoning
 * items (`loopReasoning`); with `compaction` (the provider whose compactions the request
 * sends) the request opens with the newest compaction and nothing before it goes. Only the newest
 * `keepImages` images and PDFs go as files; older ones become a one-line placeholder, the
 * first thing left out of a request (the transcript marks them "not sent" by the same rule).
 */
export function buildHistory(
  messages: readonly StoredMessage[],
  shape: WireShape,
  system: string,
  images: MediaOptions = { keep: Infinity, model: '' },
  options: { reasoningItems?: boolean; compaction?: 'anthropic' | 'openai' } = {},
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
  const inOrder = requestOrder(messages);
  // With the provider's compactions sent, the request opens with the newest one it can read.
  const cut = options.compaction ? compactionCut(inOrder, options.compaction) : -1;
  const ordered = cut > 0 ? inOrder.slice(cut) : inOrder;
  const holder = cut >= 0 ? ordered[0] : undefined;
  const pdfAs = images.pdfAs ?? 'file';
  const cleared = imagesToClear(ordered, images.keep, images.imagesOff, images.budget);
  // OpenAI's Responses API: the current tool loop's answers go back with their reasoning items.
  const loop = shape === 'openai' && options.reasoningItems ? loopReasoning(ordered) : undefined;
  for (const message of ordered) {
    const shown = withImagesCleared(message, cleared, shape, images.model, pdfAs);
    const wire =
      shown === message
        ? wireOf(message, shape, images.model, pdfAs, images.toolImages)
        : shape === 'anthropic'
          ? toAnthropicWire([shown], images.model, pdfAs)
          : toOpenAIWire([shown], undefined, images.model, pdfAs, images.toolImages);
    const reasoning = loop?.get(message.id);
    for (const item of message === holder ? compactionHolderItems(message, wire, shape) : wire) {
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
export function storedMessageTokens(
  message: StoredMessage,
  shape: WireShape,
  count: (m: WindowMessage) => number,
  model?: string,
  pdfAs?: PdfSentAs,
  toolImages?: boolean,
): number {
  let total = 0;
  for (const item of wireOf(message, shape, model, pdfAs, toolImages)) total += count(item.message);
  return total;
}
