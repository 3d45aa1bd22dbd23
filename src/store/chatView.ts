/**
 * What the chat screen shows, derived from one plan: the transcript rows (messages not
 * sent dimmed, the trim notice where the cut falls, the summary in force inline) and the
 * gauge. The gauge, the notice, the dimming and the summary all read the same plan that
 * the next request will be built from.
 */
import type { ContextPlan, ConversationTree, DocumentBlock, PdfSentAs, StoredMessage, Usage } from '../core';
import {
  compactionOf,
  estimateRequestCost,
  estimateTextTokens,
  totalUsage,
  imagesToClear,
  imageTokens,
  documentTokens,
  imageTokensIn,
  MESSAGE_OVERHEAD_TOKENS,
  pricesForPrompt,
  supportsContextEditing,
  versionsOf,
  withImagesCleared,
} from '../core';
import { providerClearedText } from './contextEdits';
import { activeSummary, compactedMessages, requestOrder, storedMessageTokens } from './history';
import { planReport, type PlanReport } from './planReport';
import type { TranscriptRow } from './transcript';
import { mediaOf } from './planning';
import { conversationCost, type TurnContext } from './turn';

/** One part of the next request in the gauge: the system prompt, the head, the summary, the newest messages, the reserve. */
export interface GaugePart {
  label: string;
  tokens: number;
}

/** What the token gauge shows, all from the plan the next request is built from. */
export interface GaugeView {
  total: number;
  contextWindow: number;
  /** The most input a request may hold: the window minus the answer's reserve (or the provider's lower cap). */
  maxInputTokens: number;
  trigger: number;
  target: number;
  parts: GaugePart[];
  approachingLimit: boolean;
  lastUsage?: Usage;
  /** What the provider said it cleared from the last request, in words ("The provider cleared 12 old tool results (8,400 tokens)"). */
  providerCleared?: string;
  costSoFar?: number;
  /** Every answer's reported output in this conversation (every branch), with the part that was reasoning where itemized; absent before any was reported. */
  outputSoFar?: { tokens: number; reasoningTokens?: number };
  nextRequestCost?: number;
  budgetTokens?: number;
  /** The plan's metrics and warnings in words. */
  report: PlanReport;
  /** Who manages the context beyond the plan: the provider's compaction and its trigger, shown under the gauge. */
  contextNote?: string;
  /** Why the provider's compaction, chosen, is not used for this model (Auto plans instead), shown in the gauge's details. */
  fallbackNote?: string;
  /** What was given up so the MCP tools' definitions fit the window, shown under the gauge. */
  toolsNote?: string;
}

export interface ChatView {
  rows: TranscriptRow[];
  gauge: GaugeView;
  plan: ContextPlan;
  /** The tool results the plan clears are cleared on the provider's side (sent whole), where the model has context editing. */
  providerClears: boolean;
}

/** What the plan counts as sent outside the messages: the Anthropic system prompt and the tool definitions. */
function systemLabel(ctx: TurnContext): string {
  if (!ctx.toolsText) return 'System prompt';
  return ctx.wireShape === 'anthropic' && ctx.settings.systemPrompt.trim() ? 'System prompt and tools' : 'Tool definitions';
}

/**
 * Rows and gauge for the branch shown (`messages`), given the plan of its next request.
 * `tree`, the whole conversation, gives each message its versions and the cost of every branch.
 */
export function chatView(
  ctx: TurnContext,
  messages: readonly StoredMessage[],
  plan: ContextPlan,
  lastUsage: Usage | undefined,
  draftTokens: number,
  tree?: ConversationTree,
): ChatView {
  const { rows, firstUserTokens } = transcriptRows(ctx, messages, plan);
  if (tree) {
    for (const row of rows) {
      if (row.kind !== 'message') continue;
      const versions = versionsOf(tree, row.message.id);
      if (versions && versions.count > 1) row.versions = { index: versions.index, count: versions.count };
    }
  }
  const spent = tree ? [...tree.byId.values()] : messages;
  const providerClears = ctx.settings.window.clearOnProvider && supportsContextEditing(ctx.provider, ctx.model.id, ctx.model.providerContextEditing);
  return { rows, plan, gauge: gaugeView(ctx, messages, spent, plan, firstUserTokens, lastUsage, draftTokens), providerClears };
}

/** The images and PDFs a message carries, a tool result's images among them. */
const filesOf = (message: StoredMessage) =>
  message.content.flatMap((b) => (b.type === 'tool_result' ? (b.images ?? []) : b.type === 'image' || b.type === 'document' ? [b] : []));

/**
 * The transcript as rows: messages (dimmed when not sent), a trim notice where a run of
 * dimmed messages ends, and the summary in force after the last message it covers. Also the
 * tokens of the first user message when it is sent (the gauge's "goal").
 */
function transcriptRows(ctx: TurnContext, messages: readonly StoredMessage[], plan: ContextPlan): { rows: TranscriptRow[]; firstUserTokens: number } {
  const notSent = new Set(plan.evicted.map((e) => e.id));
  const media = mediaOf(ctx);
  const imagesLeftOut = imagesToClear(requestOrder(messages), media.keep, media.imagesOff, media.budget);
  const summary = activeSummary(messages);
  const covered = new Set(summary?.covers ?? []);
  const provider = ctx.compaction?.provider;
  const compacted = new Set(compactedMessages(messages, provider).map((m) => m.id));
  const rows: TranscriptRow[] = [];
  let run = 0;
  let runCovered = 0;
  let lastCoveredIndex = -1;
  messages.forEach((m, i) => {
    if (covered.has(m.id)) lastCoveredIndex = i;
  });
  let firstUserTokens = 0;
  let seenFirstUser = false;
  messages.forEach((m, i) => {
    if (m.kind === 'summary') return; // the summary in force is placed after what it covers; older ones are superseded
    const isCovered = covered.has(m.id);
    const dim = isCovered || notSent.has(m.id) || compacted.has(m.id);
    // An image or PDF left out counts as the note sent in its place.
    const tokens = storedMessageTokens(
      withImagesCleared(m, imagesLeftOut, ctx.wireShape, ctx.modelId, ctx.pdfAs),
      ctx.wireShape,
      ctx.counter,
      ctx.modelId,
      ctx.pdfAs,
      media.toolImages,
    );
    if (!seenFirstUser && m.role === 'user') {
      seenFirstUser = true;
      if (!dim) firstUserTokens = tokens;
    }
    if (dim && m.status !== 'streaming') {
      run++;
      if (isCovered) runCovered++;
    } else if (run > 0) {
      const holder = provider && compacted.size > 0 && i === compacted.size ? compactionOf(m, provider) : undefined;
      rows.push({
        kind: 'trim',
        key: `trim-${m.id}`,
        evicted: run,
        summarized: runCovered > 0,
        reason: plan.metrics.trigger ?? undefined,
        strategy: plan.strategy,
        ...(holder && provider ? { compactedBy: provider, ...(holder.compactedTokens ? { compactedTokens: holder.compactedTokens } : {}) } : {}),
      });
      run = 0;
      runCovered = 0;
    }
    const row: TranscriptRow = { kind: 'message', key: m.id, message: m, notSent: dim && m.status !== 'streaming', tokens };
    const unsentImages = filesOf(m).flatMap((file) => (imagesLeftOut.has(file.fileId) ? [file.fileId] : []));
    if (unsentImages.length > 0) row.imagesNotSent = unsentImages;
    rows.push(row);
    if (summary && i === lastCoveredIndex) rows.push({ kind: 'summary', key: summary.id, message: summary });
  });
  if (summary && lastCoveredIndex < 0) rows.push({ kind: 'summary', key: summary.id, message: summary });
  return { rows, firstUserTokens };
}

/**
 * While a long conversation is read, the rows of its newest messages (`newest`, read first)
 * on the branch ending at `leafId` (the newest message when it names none): each with its
 * tokens, none dimmed, since nothing is planned until all of it is read. Empty when the
 * branch's end is not among them: then nothing shows until the whole branch can.
 */
export function openingRows(ctx: TurnContext, newest: readonly StoredMessage[], leafId: string | undefined): TranscriptRow[] {
  const byId = new Map(newest.filter((m) => m.kind !== 'summary').map((m) => [m.id, m]));
  const branch: StoredMessage[] = [];
  for (let at = byId.get(leafId ?? [...byId.keys()].at(-1) ?? ''); at; at = at.parentId ? byId.get(at.parentId) : undefined) {
    branch.push(at);
    byId.delete(at.id); // a cycle in hostile records ends here
  }
  return branch.reverse().map((message) => ({
    kind: 'message',
    key: message.id,
    message,
    notSent: false,
    tokens: storedMessageTokens(message, ctx.wireShape, ctx.counter, ctx.modelId, ctx.pdfAs, mediaOf(ctx).toolImages),
  }));
}

/** The gauge: the parts of the next request, its thresholds, its cost and the last usage reported. */
function gaugeView(
  ctx: TurnContext,
  messages: readonly StoredMessage[],
  spent: readonly StoredMessage[],
  plan: ContextPlan,
  firstUserTokens: number,
  lastUsage: Usage | undefined,
  draftTokens: number,
): GaugeView {
  const metrics = plan.metrics;
  const slotLabel = plan.slot?.kind === 'summary' ? 'Summary' : 'Trim marker';
  const newest = Math.max(0, metrics.messageTokens - metrics.slotTokens - firstUserTokens);
  const parts: GaugePart[] = [];
  if (metrics.systemTokens > 0) parts.push({ label: systemLabel(ctx), tokens: metrics.systemTokens });
  parts.push({ label: 'First message (goal)', tokens: firstUserTokens });
  if (metrics.slotTokens > 0) parts.push({ label: slotLabel, tokens: metrics.slotTokens });
  const images = imageTokensIn(plan.messages.map((item) => item.message));
  parts.push({ label: 'Newest messages', tokens: Math.max(0, newest - images) });
  if (images > 0) parts.push({ label: 'Images and PDFs', tokens: images });
  parts.push({ label: 'Draft', tokens: draftTokens });
  parts.push({ label: 'Output reserve', tokens: metrics.outputReserveTokens });
  const prices = ctx.prices ? (pricesForPrompt(ctx.model, metrics.inputTokens) ?? ctx.prices) : undefined;
  // A free model (the Demo, a local server) has no cost to show.
  // Every branch's answers were paid for.
  const costSoFar = conversationCost(spent);
  const reported = spent.filter((m) => m.usage);
  const usageSoFar = totalUsage(reported.map((m) => m.usage));
  const nextCost = prices ? estimateRequestCost(metrics.inputTokens, metrics.outputReserveTokens, prices) : undefined;
  return {
    total: metrics.totalTokens,
    contextWindow: metrics.contextWindow,
    maxInputTokens: metrics.maxInputTokens,
    report: planReport(plan),
    // Under the provider's compaction its trigger is the mark that matters.
    trigger: ctx.compaction ? ctx.compaction.triggerTokens : metrics.triggerTokens,
    target: metrics.targetTokens,
    parts,
    approachingLimit: metrics.approachingLimit,
    lastUsage: lastUsage ?? lastReportedUsage(messages),
    providerCleared: providerClearedText(lastAnswer(messages)?.contextEdits),
    costSoFar: costSoFar && costSoFar > 0 ? costSoFar : undefined,
    outputSoFar:
      reported.length === 0
        ? undefined
        : { tokens: usageSoFar.outputTokens, ...(usageSoFar.reasoningTokens ? { reasoningTokens: usageSoFar.reasoningTokens } : {}) },
    nextRequestCost: nextCost && nextCost > 0 ? nextCost : undefined,
    contextNote: ctx.compaction
      ? `${ctx.compaction.provider === 'anthropic' ? 'Anthropic' : 'OpenAI'} compacts the conversation once a request passes ${ctx.compaction.triggerTokens.toLocaleString('en-US')} input tokens.`
      : undefined,
    fallbackNote: ctx.strategyFallback,
    toolsNote: ctx.toolsNote,
    // Shown only when it binds: a budget above the window's own trim line changes nothing.
    budgetTokens:
      Number.isFinite(ctx.budgetTokens) && ctx.budgetTokens < Math.floor(metrics.contextWindow * ctx.settings.window.triggerRatio)
        ? ctx.budgetTokens
        : undefined,
  };
}

/** The newest answer with reported usage: the last request the provider counted. */
function lastAnswer(messages: readonly StoredMessage[]): StoredMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m?.role === 'assistant' && m.kind === 'message' && m.usage) return m;
  }
  return undefined;
}

/** The usage stored with the newest answer, so the gauge shows the last request's usage after a reload too. */
function lastReportedUsage(messages: readonly StoredMessage[]): Usage | undefined {
  return lastAnswer(messages)?.usage;
}

/** Tokens of the draft as it would be sent (text, images and PDFs, plus the message's framing). */
export function draftTokens(
  text: string,
  images: readonly { width: number; height: number }[] = [],
  shape: 'anthropic' | 'openai' = 'anthropic',
  model = '',
  pdfs: readonly Pick<DocumentBlock, 'pages' | 'pageTokens'>[] = [],
  pdfAs: PdfSentAs = 'file',
): number {
  let tokens = text.trim() ? estimateTextTokens(text) : 0;
  for (const image of images) tokens += imageTokens(shape, image.width, image.height, model);
  for (const pdf of pdfs) tokens += documentTokens(shape, pdf, pdfAs, model);
  return tokens > 0 ? tokens + MESSAGE_OVERHEAD_TOKENS : 0;
}
