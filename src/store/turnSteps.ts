/**
 * The steps of a turn after its checks (sendPipeline.ts), from the user's message to the
 * saved answer: a chunk of its own, loaded while the page is idle or when the composer is
 * focused, so the first screen does not wait for it. Each request of the turn goes
 *
 *   plan → build the request → stream → save → (tool round | recover | done)
 *
 * `planning.ts` plans, `request.ts` builds the request, `recovery.ts` decides the next
 * attempt after a failed request, `toolRound.ts` runs the tools between two answers,
 * `messageWrites.ts` stores what arrives, and `summaries.ts` writes a summary when a plan
 * asks for one.
 */
import type { ContentBlock, StoredMessage } from '../core';
import { isWindowpaneError } from '../core';
import { createStreamWriter, registerFlushOnHide, type StreamWriter } from '../persistence';
import type { ChatResult, StreamCallbacks } from '../providers';
import type { Runtime } from './runtime';
import { calibrateOnAnswer, loadCalibration, rawEstimate } from './calibration';
import { appendMessage, finishMessage, streamedContent, streamingContent } from './messageWrites';
import { createConversationFor } from './newConversation';
import { contextFor, planFor } from './planning';
import { announcePlan, toRequest, type PlannedRequest } from './request';
import { providerClearedText } from './contextEdits';
import { withFiles } from './requestFiles';
import { recover, type Attempt } from './recovery';
import { storeDraftImages } from './imageActions';
import { storeDraftPdfs } from './pdfActions';
import { ensureSummary } from './summaries';
import { toolRound } from './toolRound';
import { turnHistory, type Turn, type TurnContext } from './turn';

export { regenerateSummary } from './summaries';
// The provider's count of a request builds it as a turn does: it comes with the turn's steps.
export { countRequest } from './exactCount';

/** Stores the user's message (in a new conversation when there is none yet); null when the conversation could not start. */
export async function postUserMessage(rt: Runtime, conversationId: string | null, text: string, edit?: { parentId: string | null }): Promise<string | null> {
  let id = conversationId;
  try {
    if (!id) id = (await createConversationFor(rt, text)).id;
  } catch (error) {
    rt.notifier.reportError(error, 'start the conversation');
    return null;
  }
  // An edit leaves the composer's draft alone: it was typed in the message, not there.
  const images = edit ? [] : rt.store.getState().draftImages;
  const pdfs = edit ? [] : rt.store.getState().draftPdfs;
  let imageBlocks: ContentBlock[] = [];
  if (images.length > 0 || pdfs.length > 0) {
    try {
      imageBlocks = [...(await storeDraftPdfs(rt, id, pdfs)), ...(await storeDraftImages(rt, id, images))];
    } catch (error) {
      // The files stay in the composer to send again.
      rt.notifier.reportError(error, pdfs.length > 0 ? 'save the files' : 'save the images');
      return null;
    }
  }
  rt.store.setState(
    edit
      ? { activeId: id }
      : {
          activeId: id,
          draft: '',
          draftImages: rt.store.getState().draftImages.filter((i) => !images.includes(i)),
          draftPdfs: rt.store.getState().draftPdfs.filter((p) => !pdfs.includes(p)),
        },
  );
  const content: ContentBlock[] = text.trim() ? [...imageBlocks, { type: 'text', text }] : imageBlocks;
  await appendMessage(rt, { conversationId: id, role: 'user', content, ...edit });
  // Busy from Send on; shown as this conversation's (Stop) once its message is on screen.
  rt.store.setState({ sendingId: id });
  return id;
}

/**
 * Asks the model, running tool rounds until it answers without a tool call or the turn
 * reaches its limit of rounds. `checked` is the context the turn was checked against: its
 * provider and model answer the whole turn. Every request is planned again in a context of
 * its own (the history grows between rounds), so the window applies between rounds.
 */
export async function answerTurn(rt: Runtime, conversationId: string, checked: TurnContext): Promise<void> {
  const controller = new AbortController();
  rt.controllers.set(conversationId, controller);
  try {
    const turn = await startTurn(rt, conversationId, checked, controller.signal);
    for (let round = 0; turn; round++) {
      const answer = await answerOnce(turn);
      if (!answer || !(await toolRound(turn, answer.message, answer.ctx, round))) return;
    }
  } finally {
    rt.controllers.delete(conversationId);
  }
}

/** The provider for this turn, with the model's saved calibration read; null (the user told) when it cannot be reached. */
async function startTurn(rt: Runtime, conversationId: string, checked: TurnContext, signal: AbortSignal): Promise<Turn | null> {
  await loadCalibration(rt, checked.model.id);
  try {
    const provider = await rt.deps.createProvider(checked.providerSettings);
    return {
      rt,
      conversationId,
      provider,
      signal,
      maxRounds: Math.max(1, Math.floor(checked.settings.tools.maxRounds) || 1),
      pinned: { provider: checked.provider, model: checked.modelId, thinking: checked.settings.thinking },
    };
  } catch (error) {
    rt.notifier.reportError(error, 'reach the provider');
    if (isWindowpaneError(error, 'auth') || isWindowpaneError(error, 'invalid_config')) rt.store.setState({ settingsOpen: true });
    return null;
  }
}

/** An answer being written: its message, the writer that stores it as it streams, and what has streamed so far. */
interface AnswerDraft {
  message: StoredMessage;
  writer: StreamWriter;
  text: string;
  thinking: string;
  /** When its first thinking arrived (the runtime's clock). */
  thinkingStartedAt?: number;
  /** From the first thinking to the first text or tool call: fixed once, stored with the answer. */
  thinkingMs?: number;
}

/** An answer stored, with the context it was asked in. */
interface Answered {
  message: StoredMessage;
  ctx: TurnContext;
}

/**
 * One request of a turn: plan (summarizing when the plan asks), stream the answer into a
 * new assistant message at the end of the branch shown, and save it. Returns the stored answer, or null when
 * it failed (the user has been told) or was stopped before it began.
 */
async function answerOnce(turn: Turn): Promise<Answered | null> {
  let draft: AnswerDraft | undefined;
  let unregister: (() => void) | undefined;
  try {
    const attempt = await firstAttempt(turn);
    if (turn.signal.aborted) return null;
    announcePlan(turn.rt, attempt.plan, requestFor(turn, attempt).request.contextManagement?.clearToolUses !== undefined);
    draft = await openAnswer(turn, attempt.ctx);
    const { writer } = draft;
    unregister = registerFlushOnHide(() => writer.flush());
    return await streamAndSave(turn, attempt, draft);
  } catch (error) {
    await saveFailure(turn, draft, error);
    return null;
  } finally {
    unregister?.();
  }
}

async function firstAttempt(turn: Turn): Promise<Attempt> {
  const ctx = contextFor(turn.rt, turn.conversationId, turn.windowLimit, turn.pinned);
  const history = () => turnHistory(turn);
  const plan = await ensureSummary(turn, ctx, planFor(ctx, history()), history);
  return { ctx, plan, contextRetried: false };
}

/**
 * The answer's message, shown as streaming. Its writer (and the writer's Web Lock) exists
 * before the message is stored, so a tab starting up meanwhile sees a live stream, not an
 * interrupted one.
 */
async function openAnswer(turn: Turn, ctx: TurnContext): Promise<AnswerDraft> {
  const { rt, conversationId } = turn;
  const id = rt.deps.newId();
  const writer = createStreamWriter(rt.repositories.conversations, id, { onError: (e) => rt.notifier.reportError(e, 'save the answer') });
  const message = await appendMessage(rt, {
    id,
    conversationId,
    role: 'assistant',
    content: [],
    status: 'streaming',
    model: ctx.modelId,
    provider: ctx.provider,
  });
  rt.store.setState({ streaming: { conversationId, messageId: message.id, text: '', thinking: '' } });
  return { message, writer, text: '', thinking: '' };
}

/** Build the request, stream it, save the answer; after a failure before any text, the attempt recovery offers. */
async function streamAndSave(turn: Turn, attempt: Attempt, draft: AnswerDraft): Promise<Answered> {
  draft.text = '';
  draft.thinking = '';
  delete draft.thinkingStartedAt;
  delete draft.thinkingMs;
  try {
    const planned = requestFor(turn, attempt, draft.message.id);
    const request = await withFiles(turn.rt, planned.request);
    const result = await turn.provider.send(request, streamCallbacks(turn, draft));
    return await saveAnswer(turn, attempt, draft, result, planned);
  } catch (error) {
    const next = draft.text === '' ? await recover(turn, attempt, error, draft.message.id) : null;
    if (!next) throw error;
    return streamAndSave(turn, next, draft);
  }
}

/** The attempt's plan as the request to send (the answer being written, `without`, is not part of its history). */
function requestFor(turn: Turn, attempt: Attempt, without?: string): PlannedRequest {
  const stored = new Map(turnHistory(turn, without).map((m) => [m.id, m.thinkingPrefix]));
  return toRequest(attempt.ctx, attempt.plan, turn.signal, (id) => {
    const key = stored.get(id);
    return typeof key === 'string' ? key : undefined;
  });
}

function streamCallbacks(turn: Turn, draft: AnswerDraft): StreamCallbacks {
  const { rt, conversationId } = turn;
  // Shows and stores what has streamed; the thinking time is stored once it is fixed, so a reload keeps it.
  const publish = () => {
    const { text, thinking, thinkingStartedAt, thinkingMs } = draft;
    rt.store.setState((s) =>
      s.streaming?.messageId === draft.message.id
        ? { streaming: { conversationId: s.streaming.conversationId, messageId: draft.message.id, text, thinking, thinkingStartedAt, thinkingMs } }
        : {},
    );
    draft.writer.update({ content: streamingContent(draft), ...(thinkingMs !== undefined ? { thinkingMs } : {}) });
  };
  return {
    onThinking: (delta) => {
      draft.thinkingStartedAt ??= rt.deps.now();
      draft.thinking += delta;
      publish();
    },
    onText: (delta) => {
      stopThinkingClock(rt, draft);
      draft.text += delta;
      publish();
    },
    onToolUse: () => {
      if (stopThinkingClock(rt, draft)) publish();
    },
    onRetry: (info) => {
      rt.store.setState({ retry: info });
      const why = info.reason === 'rate_limit' ? 'Rate limited' : info.reason === 'overloaded' ? 'The provider is overloaded' : 'The request failed';
      const text = `${why}; retrying in ${Math.ceil(info.delayMs / 1000)} s (attempt ${info.attempt} of ${info.maxRetries}).`;
      rt.notifier.notify({ id: `retry-${conversationId}`, tone: 'warning', text }, info.delayMs + 1500);
    },
  };
}

/** Fixes the answer's thinking time at the first text or tool call after it thought; true when this call fixed it. */
function stopThinkingClock(rt: Runtime, draft: AnswerDraft): boolean {
  if (draft.thinkingStartedAt === undefined || draft.thinkingMs !== undefined) return false;
  draft.thinkingMs = Math.max(0, rt.deps.now() - draft.thinkingStartedAt);
  return true;
}

/** Stores the finished answer with its usage, and calibrates the estimate of what was sent against what the provider counted. */
async function saveAnswer(
  turn: Turn,
  attempt: Attempt,
  draft: AnswerDraft,
  result: ChatResult,
  { request, thinkingPrefix }: PlannedRequest,
): Promise<Answered> {
  const { rt, conversationId } = turn;
  const { ctx, plan } = attempt;
  const status = result.stopReason === 'stopped' ? 'stopped' : 'complete';
  const final: Partial<StoredMessage> = { content: result.content, status, model: result.model || ctx.modelId };
  if (thinkingPrefix !== undefined) final.thinkingPrefix = thinkingPrefix;
  if (result.usageReported) final.usage = result.usage;
  if (result.contextEdits) final.contextEdits = result.contextEdits;
  // An answer that only thought (or was stopped mid-thought) thought until it ended.
  stopThinkingClock(rt, draft);
  if (draft.thinkingMs !== undefined) final.thinkingMs = draft.thinkingMs;
  const message = await finishMessage(rt, draft.message, draft.writer, final);
  rt.store.setState((s) => (s.streaming?.messageId === message.id ? { streaming: null } : {}));
  if (result.usageReported) {
    rt.store.setState((s) => ({ lastUsage: { ...s.lastUsage, [conversationId]: result.usage } }));
    calibrateOnAnswer(rt, ctx, rawEstimate(ctx, plan, request.messages), result);
  }
  const cleared = providerClearedText(result.contextEdits);
  if (cleared) rt.notifier.notify({ id: 'compaction', tone: 'info', text: `${cleared} from this request. The full output stays in the conversation.` });
  if (result.stopReason === 'max_tokens') rt.notifier.notify({ tone: 'info', text: 'The answer reached its output limit (Max output tokens in Settings).' });
  return { message, ctx };
}

/** Tells the user, and keeps what arrived of the answer marked as an error (its tool calls dropped: they never run). */
async function saveFailure(turn: Turn, draft: AnswerDraft | undefined, error: unknown): Promise<void> {
  const { rt } = turn;
  const message = rt.notifier.reportError(error, 'get an answer');
  if (!draft) return;
  const partial = (isWindowpaneError(error) ? error.details.partialContent : undefined) ?? streamedContent(rt, draft.message);
  const code = isWindowpaneError(error) ? error.code : 'provider';
  const content = partial.filter((block) => block.type !== 'tool_use');
  await finishMessage(rt, draft.message, draft.writer, { status: 'error', content, error: { code, message } });
}
