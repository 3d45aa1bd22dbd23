/**
 * The send loop (ARCHITECTURE.md "One send, end to end"): append and persist the user
 * message, plan the context, summarize when the plan asks, stream the answer with
 * throttled persistence, record usage, calibrate, and recover once from a context-length
 * error by tightening the calibration and planning again.
 */
import type { AnthropicWireMessage, ContentBlock, ContextPlan, OpenAIWireMessage, PlanItem, StoredMessage, SummaryRequest, ToolResultBlock, ToolUseBlock, WindowMessage } from '../core';
import {
  SLOT_ITEM_ID,
  WindowpaneError,
  buildSummaryPrompt,
  estimateTextTokens,
  isWindowpaneError,
  messageText,
  observeInputTokens,
  placeCacheBreakpoints,
  planContext,
  readCalibration,
  resolveModelInfo,
  reportedInputTokens,
  summaryCacheKey,
  summaryMessage,
  tightenCalibration,
  toolNamesCalled,
  type CalibrationState,
} from '../core';
import { createStreamWriter, registerFlushOnHide, type NewMessage, type StreamWriter } from '../persistence';
import type { ChatProvider, ChatRequest } from '../providers';
import { conversationOverrides, notify, repo, reportError, upsertMessage, type Runtime } from './appStore';
import { createConversationFor } from './newConversation';
import { buildHistory } from './history';
import { enabledTools, runToolCall, STOPPED_BY_USER, unansweredResults, type ToolEnvironment } from './tools/dispatcher';
import { rawCounter, turnContext, withoutTools, type TurnContext } from './turn';

/** Reads the calibration saved for `modelId` into the state, once per model per runtime. */
export async function loadCalibration(rt: Runtime, modelId: string): Promise<void> {
  if (rt.calibrationLoaded.has(modelId)) return;
  rt.calibrationLoaded.add(modelId);
  const saved = await repo(rt)?.getCalibration(modelId).catch(() => undefined);
  if (saved) {
    rt.store.setState(({ calibration }) => ({
      calibration: { version: 1, models: { ...calibration.models, ...readCalibration({ models: { [modelId]: saved } }).models } },
    }));
  }
}

/** Applies what a request taught about the estimate for `modelId`, and saves it. */
function updateCalibration(rt: Runtime, modelId: string, change: (calibration: CalibrationState) => CalibrationState): void {
  rt.store.setState(({ calibration }) => ({ calibration: change(calibration) }));
  void saveCalibration(rt, modelId);
}

async function saveCalibration(rt: Runtime, modelId: string): Promise<void> {
  const entry = rt.store.getState().calibration.models[modelId];
  if (entry) await repo(rt)?.setCalibration(modelId, entry).catch(() => undefined);
}

/**
 * The settings, model and counter in force for a conversation now. `windowLimit` (tokens)
 * stands in for the context window when a provider has stated a smaller one.
 */
export function contextFor(rt: Runtime, conversationId: string | null, windowLimit?: number): TurnContext {
  const state = rt.store.getState();
  const conversation = conversationId ? state.conversations.find((c) => c.id === conversationId) : undefined;
  const overrides = conversationOverrides(conversation);
  const hasAttachments = conversationId !== null && (state.attachments[conversationId]?.length ?? 0) > 0;
  // Read only when no tool is offered (see turnContext): a scan of the history otherwise spared.
  const historyTools = () => (conversationId ? toolNamesCalled(state.messages[conversationId] ?? []) : []);
  const ctx = turnContext(state.settings, windowLimit ? { ...overrides, contextWindow: windowLimit } : overrides, state.calibration, hasAttachments, historyTools);
  return ctx.tools.length > 0 && state.toolsRefused.includes(toolsKey(ctx)) ? withoutTools(ctx) : ctx;
}

/** The plan for the next request of a conversation (pure; the gauge reads the same one). */
export function planFor(ctx: TurnContext, messages: readonly StoredMessage[], draftTokens = 0): ContextPlan {
  return planContext({
    history: buildHistory(messages, ctx.wireShape, ctx.settings.systemPrompt),
    policy: ctx.policy,
    model: { contextWindow: ctx.model.contextWindow, maxOutputTokens: ctx.model.maxOutputTokens },
    counter: ctx.counter,
    system: fixedText(ctx),
    draftTokens,
  });
}

/**
 * What every request carries outside its messages, for the planner to count as fixed: the
 * Anthropic system prompt (OpenAI's is the first message) and the tool definitions.
 */
function fixedText(ctx: TurnContext): string | undefined {
  const system = ctx.wireShape === 'anthropic' && ctx.settings.systemPrompt.trim() ? ctx.settings.systemPrompt : '';
  return [system, ctx.toolsText].filter(Boolean).join('\n\n') || undefined;
}

/** Writes a message (or, without storage, keeps it in memory) and shows it. */
async function appendMessage(rt: Runtime, message: NewMessage): Promise<StoredMessage> {
  const repository = rt.memoryOnly.has(message.conversationId) ? null : repo(rt);
  if (repository) {
    try {
      const stored = await repository.appendMessage(message);
      upsertMessage(rt, stored);
      return stored;
    } catch (error) {
      reportError(rt, error, 'save the message');
    }
  }
  // Kept in memory so nothing typed is lost; it will not survive a reload.
  const list = rt.store.getState().messages[message.conversationId] ?? [];
  const stored: StoredMessage = {
    kind: 'message',
    status: 'complete',
    ...message,
    id: message.id ?? rt.deps.newId(),
    seq: (list.at(-1)?.seq ?? -1) + 1,
    createdAt: message.createdAt ?? rt.deps.now(),
  };
  upsertMessage(rt, stored);
  return stored;
}

async function updateMessage(rt: Runtime, message: StoredMessage, patch: Partial<StoredMessage>): Promise<StoredMessage> {
  const next = { ...message, ...patch };
  upsertMessage(rt, next);
  try {
    const saved = await repo(rt)?.updateMessage(message.id, patch);
    if (saved) upsertMessage(rt, saved);
    return saved ?? next;
  } catch (error) {
    reportError(rt, error, 'save the message');
    return next;
  }
}

/**
 * Sends `text` as a user message (creating the conversation if needed) and streams the
 * answer. Returns false at once, taking nothing, while another answer is in flight, so
 * the composer keeps the draft.
 */
export function send(rt: Runtime, conversationId: string | null, text: string): boolean {
  if (!text.trim() || rt.store.getState().sendingId) return false;
  rt.store.setState({ sendingId: conversationId ?? 'new' });
  void sendNow(rt, conversationId, text);
  return true;
}

async function sendNow(rt: Runtime, conversationId: string | null, text: string): Promise<void> {
  let id = conversationId;
  try {
    if (!id) id = (await createConversationFor(rt, text)).id;
  } catch (error) {
    reportError(rt, error, 'start the conversation');
    rt.store.setState({ sendingId: null });
    return;
  }
  rt.store.setState({ activeId: id, draft: '' });
  await appendMessage(rt, { conversationId: id, role: 'user', content: [{ type: 'text', text }] });
  rt.store.setState({ sendingId: null });
  await respond(rt, id);
}

/**
 * Stops the answer being streamed, or the tool running between two answers (its worker is
 * terminated); what arrived so far is kept and marked stopped, and tool calls left without
 * a result get one saying the user stopped them, so the next request is valid.
 */
export function stop(rt: Runtime, conversationId: string): void {
  rt.controllers.get(conversationId)?.abort();
}

/**
 * Answers the conversation as it stands, running tool round-trips until the model answers
 * without a tool call, up to `settings.tools.maxRounds` rounds. Every round is planned
 * again, so the window applies between rounds. `into` re-streams an existing assistant
 * message (regenerate) instead of appending a new one.
 */
export async function respond(rt: Runtime, conversationId: string, into?: StoredMessage): Promise<void> {
  if (rt.store.getState().sendingId) return;
  const controller = new AbortController();
  const { signal } = controller;
  rt.controllers.set(conversationId, controller);
  rt.store.setState({ sendingId: conversationId, retry: null });
  try {
    let ctx = contextFor(rt, conversationId);
    await loadCalibration(rt, ctx.model.id);
    ctx = contextFor(rt, conversationId);
    let provider: ChatProvider;
    try {
      provider = await rt.deps.createProvider(ctx.providerSettings);
    } catch (error) {
      reportError(rt, error, 'reach the provider');
      if (isWindowpaneError(error, 'auth') || isWindowpaneError(error, 'invalid_config')) rt.store.setState({ settingsOpen: true });
      return;
    }
    const maxRounds = Math.max(1, Math.floor(ctx.settings.tools.maxRounds) || 1);
    const turn: TurnLimits = {};
    for (let round = 0; ; round++) {
      const answer = await answerOnce(rt, conversationId, ctx, provider, signal, turn, round === 0 ? into : undefined);
      const calls = answer ? answer.content.filter((b): b is ToolUseBlock => b.type === 'tool_use') : [];
      if (calls.length === 0) return;
      if (signal.aborted || answer?.status === 'stopped') {
        await appendToolResults(rt, conversationId, unansweredResults(calls, STOPPED_BY_USER));
        return;
      }
      if (round >= maxRounds) {
        await appendToolResults(rt, conversationId, unansweredResults(calls, `Not run: this turn reached its limit of ${maxRounds} tool rounds. Tell the user what you have done so far; they can ask you to continue.`));
        notify(rt, {
          id: `tool-limit-${conversationId}`,
          tone: 'warning',
          text: `Stopped after ${maxRounds} tool rounds in one answer, the limit set by “Tool rounds per turn” in Settings. Send “continue” to let the model go on, or raise the limit.`,
        });
        return;
      }
      rt.store.setState({ toolRun: { conversationId, round: round + 1, maxRounds, running: null } });
      const results = await runTools(rt, conversationId, ctx, calls, signal);
      await appendToolResults(rt, conversationId, results);
      if (signal.aborted) return;
      // Calibration learned from this round's usage, and a smaller window the provider stated, apply to the next plan.
      ctx = contextFor(rt, conversationId, turn.windowLimit);
    }
  } catch (error) {
    reportError(rt, error, 'get an answer');
  } finally {
    rt.controllers.delete(conversationId);
    rt.store.setState((s) => ({
      sendingId: s.sendingId === conversationId ? null : s.sendingId,
      streaming: s.streaming?.conversationId === conversationId ? null : s.streaming,
      toolRun: s.toolRun?.conversationId === conversationId ? null : s.toolRun,
      retry: null,
    }));
  }
}

/** What one round learned that the next rounds of the turn keep: the provider's own, smaller window. */
interface TurnLimits {
  windowLimit?: number;
}

function toolsKey(ctx: TurnContext): string {
  return `${ctx.provider}\u0000${ctx.providerSettings.baseUrl ?? ''}\u0000${ctx.modelId}`;
}

function isToolsRefusal(error: unknown): boolean {
  return isWindowpaneError(error, 'bad_request') && error.details.toolsUnsupported === true;
}

/**
 * One request of a turn: plan (summarizing when the plan asks), stream the answer into a
 * new assistant message (or `into`), store it with its usage and calibrate. Recovers once
 * from a context-length error (a smaller window the provider states is kept in `turn` for
 * the next rounds) and once from an endpoint that refuses tools. Returns the stored
 * answer, or null when it failed (the user has been told) or was stopped before it began.
 */
async function answerOnce(
  rt: Runtime,
  conversationId: string,
  turnCtx: TurnContext,
  provider: ChatProvider,
  signal: AbortSignal,
  turn: TurnLimits,
  into: StoredMessage | undefined,
): Promise<StoredMessage | null> {
  let ctx = turnCtx;
  let assistant: StoredMessage | undefined;
  let writer: StreamWriter | undefined;
  let unregister: (() => void) | undefined;
  try {
    const history = (): StoredMessage[] => (rt.store.getState().messages[conversationId] ?? []).filter((m) => m.id !== assistant?.id);
    let plan = planFor(ctx, history());
    plan = await ensureSummary(rt, ctx, provider, conversationId, plan, history, signal);
    if (signal.aborted) return null;
    announcePlan(rt, plan);

    // The writer (and its Web Lock) exists before the message is stored, so a tab starting
    // up meanwhile sees a live stream, not an interrupted one.
    const assistantId = into?.id ?? rt.deps.newId();
    const repository = repo(rt);
    const streamWriter = repository ? createStreamWriter(repository, assistantId, { onError: (e) => reportError(rt, e, 'save the answer') }) : undefined;
    writer = streamWriter;
    if (into) {
      assistant = await updateMessage(rt, into, { content: [], status: 'streaming', error: undefined, usage: undefined, model: ctx.modelId, provider: ctx.provider });
    } else {
      assistant = await appendMessage(rt, { id: assistantId, conversationId, role: 'assistant', content: [], status: 'streaming', model: ctx.modelId, provider: ctx.provider });
    }
    if (streamWriter) unregister = registerFlushOnHide(() => streamWriter.flush());
    rt.store.setState({ streaming: { conversationId, messageId: assistant.id, text: '' } });

    let contextRetried = false;
    for (;;) {
      let text = '';
      try {
        const result = await provider.send(toRequest(ctx, plan, signal), {
          onText: (delta) => {
            text += delta;
            rt.store.setState((s) => (s.streaming?.messageId === assistant?.id ? { streaming: { ...s.streaming!, text } } : {}));
            writer?.update({ content: [{ type: 'text', text }] });
          },
          onRetry: (info) => {
            rt.store.setState({ retry: info });
            notify(rt, {
              id: `retry-${conversationId}`,
              tone: 'warning',
              text: `${info.reason === 'rate_limit' ? 'Rate limited' : info.reason === 'overloaded' ? 'The provider is overloaded' : 'The request failed'}; retrying in ${Math.ceil(info.delayMs / 1000)} s (attempt ${info.attempt} of ${info.maxRetries}).`,
            }, info.delayMs + 1500);
          },
        });
        const status = result.stopReason === 'stopped' ? 'stopped' : 'complete';
        const final: Partial<StoredMessage> = { content: result.content, status, model: result.model || ctx.modelId };
        if (result.usageReported) final.usage = result.usage;
        assistant = await finishMessage(rt, assistant, writer, final);
        rt.store.setState((s) => (s.streaming?.messageId === assistant?.id ? { streaming: null } : {}));
        if (result.usageReported) {
          rt.store.setState((s) => ({ lastUsage: { ...s.lastUsage, [conversationId]: result.usage } }));
          updateCalibration(rt, ctx.model.id, (calibration) => observeInputTokens(calibration, ctx.model.id, rawEstimate(ctx, plan), reportedInputTokens(result.usage)));
        }
        if (result.stopReason === 'max_tokens') notify(rt, { tone: 'info', text: 'The answer reached its output limit (Max output tokens in Settings).' });
        return assistant;
      } catch (error) {
        if (text === '' && ctx.tools.length > 0 && isToolsRefusal(error)) {
          // A local model without tool support: say so once, and carry on without tools.
          rt.store.setState(({ toolsRefused }) => ({ toolsRefused: [...toolsRefused, toolsKey(ctx)] }));
          ctx = withoutTools(ctx);
          plan = planFor(ctx, history());
          notify(rt, {
            id: `tools-refused-${toolsKey(ctx)}`,
            tone: 'warning',
            text: `${(error as Error).message} Windowpane sent the message again without tools, and will not offer tools to ${ctx.modelId} again in this visit. Pick a model that supports tools, or switch the tools off in Settings.`,
          });
          continue;
        }
        if (!contextRetried && isWindowpaneError(error, 'context_length') && text === '') {
          contextRetried = true;
          const promptTokens = error.details.promptTokens ?? 0;
          const limit = error.details.limit ?? 0;
          if (promptTokens > 0) {
            updateCalibration(rt, ctx.model.id, (calibration) => tightenCalibration(calibration, ctx.model.id, rawEstimate(ctx, plan), promptTokens));
          }
          // A limit below the window we planned for means the window setting is too large
          // (or the server's smaller): only a plan within the stated limit can succeed.
          const statedLimit = limit > 0 && limit < ctx.model.contextWindow ? limit : undefined;
          if (statedLimit) turn.windowLimit = statedLimit;
          ctx = contextFor(rt, conversationId, turn.windowLimit);
          const retryPlan = await ensureSummary(rt, ctx, provider, conversationId, planFor(ctx, history()), history, signal);
          notify(rt, {
            tone: 'warning',
            text: `The provider counted ${promptTokens > 0 ? promptTokens.toLocaleString('en-US') : 'more'} tokens${limit > 0 ? `, over its ${limit.toLocaleString('en-US')} limit` : ''}. Windowpane recalibrated its estimate, trimmed ${Math.max(0, retryPlan.metrics.evictedMessages - plan.metrics.evictedMessages)} more message(s) and retried.${statedLimit ? ` Set the Context window in Settings to ${statedLimit.toLocaleString('en-US')} or less to avoid this.` : ''}`,
          });
          plan = retryPlan;
          continue;
        }
        throw error;
      }
    }
  } catch (error) {
    const message = reportError(rt, error, 'get an answer');
    if (assistant) {
      const partial = (isWindowpaneError(error) ? error.details.partialContent : undefined) ?? currentText(rt, assistant);
      const code = isWindowpaneError(error) ? error.code : 'provider';
      // Tool calls of a failed answer never run; left in, they would have no result.
      const content = partial.filter((block) => block.type !== 'tool_use');
      await finishMessage(rt, assistant, writer, { status: 'error', content, error: { code, message } });
    }
    return null;
  } finally {
    unregister?.();
  }
}

/** Runs the calls of one answer in order; after Stop the rest are answered as stopped. */
async function runTools(rt: Runtime, conversationId: string, ctx: TurnContext, calls: readonly ToolUseBlock[], signal: AbortSignal): Promise<ToolResultBlock[]> {
  const env: ToolEnvironment = {
    enabled: new Set(enabledTools(ctx.settings.tools, true).map((tool) => tool.name)),
    listAttachments: async () => {
      const repository = repo(rt);
      return repository ? await repository.listAttachments(conversationId) : [];
    },
    runJavascript: rt.deps.runJavascript,
    signal,
  };
  const results: ToolResultBlock[] = [];
  for (const call of calls) {
    rt.store.setState((s) => (s.toolRun?.conversationId === conversationId ? { toolRun: { ...s.toolRun, running: { id: call.id, name: call.name } } } : {}));
    results.push(await runToolCall(call, env));
  }
  rt.store.setState((s) => (s.toolRun?.conversationId === conversationId ? { toolRun: { ...s.toolRun, running: null } } : {}));
  return results;
}

/** The results of one answer's tool calls, as the one user message that must follow it. */
async function appendToolResults(rt: Runtime, conversationId: string, results: ToolResultBlock[]): Promise<void> {
  await appendMessage(rt, { conversationId, role: 'user', content: results });
}

function currentText(rt: Runtime, message: StoredMessage): ContentBlock[] {
  const streaming = rt.store.getState().streaming;
  const text = streaming?.messageId === message.id ? streaming.text : '';
  return text ? [{ type: 'text', text }] : [];
}

async function finishMessage(rt: Runtime, message: StoredMessage, writer: StreamWriter | undefined, patch: Partial<StoredMessage>): Promise<StoredMessage> {
  const next = { ...message, ...patch };
  upsertMessage(rt, next);
  if (!writer) return next;
  try {
    return (await writer.finish(patch)) ?? next;
  } catch (error) {
    reportError(rt, error, 'save the answer');
    return next;
  }
}

/** The uncalibrated estimate of everything a plan sends, to compare with what the provider counted. */
function rawEstimate(ctx: TurnContext, plan: ContextPlan): number {
  let total = 0;
  for (const item of plan.messages) total += rawCounter(item.message);
  if (plan.metrics.systemTokens > 0 && ctx.calibrationFactor > 0) total += Math.round(plan.metrics.systemTokens / ctx.calibrationFactor);
  return total;
}

/** The plan's messages as the provider's request, with Anthropic cache breakpoints on the stable prefix. */
export function toRequest(ctx: TurnContext, plan: ContextPlan, signal?: AbortSignal): ChatRequest {
  const system = ctx.settings.systemPrompt.trim() ? ctx.settings.systemPrompt : undefined;
  if (ctx.wireShape === 'anthropic') {
    const boundaries = plan.slot ? [plan.slot.index] : [];
    const cacheBreakpoints = placeCacheBreakpoints(plan.messages, boundaries, { system: Boolean(system) });
    return { model: ctx.modelId, system, messages: plan.messages.map((item) => item.message as AnthropicWireMessage), maxTokens: ctx.outputReserve, signal, cacheBreakpoints, tools: ctx.tools };
  }
  return { model: ctx.modelId, messages: plan.messages.map((item) => item.message as OpenAIWireMessage), maxTokens: ctx.outputReserve, signal, tools: ctx.tools };
}

/** Tells the user when this request leaves earlier messages out, or cannot fit at all. */
function announcePlan(rt: Runtime, plan: ContextPlan): void {
  const m = plan.metrics;
  if (m.overBudget) {
    notify(rt, { id: 'over-budget', tone: 'warning', text: `This request is over its limit even after trimming: ${m.overBudgetReasons.join(' ')}` });
  }
  const count = m.evictedMessages;
  if (m.trimmed && count > 0) {
    const what = `${count.toLocaleString('en-US')} earlier message${count === 1 ? ' is' : 's are'} left out of this request`;
    const how = plan.slot?.kind === 'summary' ? 'and a summary is sent in their place' : 'to keep it within its limits';
    // The seed strategies' triggers name the user's own settings ("42 messages > max_messages (30)");
    // the default's high- and low-water marks are internal and leave out the output reserve the gauge shows.
    const why = m.trigger && plan.strategy !== 'auto' ? `: ${m.trigger}` : '';
    const alsoCleared = m.clearedToolResults > 0 ? ` ${clearedPhrase(m.clearedToolResults)}.` : '';
    notify(rt, { id: 'compaction', tone: 'info', text: `${what} ${how}${why}.${alsoCleared} They stay in the conversation.` });
  } else if (m.clearedToolResults > 0) {
    notify(rt, {
      id: 'compaction',
      tone: 'info',
      text: `${clearedPhrase(m.clearedToolResults)} to save about ${m.clearedTokens.toLocaleString('en-US')} tokens. The full output stays in the conversation.`,
    });
  }
}

function clearedPhrase(n: number): string {
  return n === 1 ? '1 older tool result is sent as a short placeholder' : `${n.toLocaleString('en-US')} older tool results are sent as short placeholders`;
}

/**
 * When the plan needs a new summary: reuse a cached one (same evicted range and previous
 * summary) or ask the provider with a small max_tokens, store it as a `summary` message
 * covering its ids, and plan again around it. On failure the plan keeps its fallback
 * marker (plain eviction) and the user is told.
 */
async function ensureSummary(
  rt: Runtime,
  ctx: TurnContext,
  provider: ChatProvider,
  conversationId: string,
  plan: ContextPlan,
  history: () => StoredMessage[],
  signal: AbortSignal,
): Promise<ContextPlan> {
  const request = plan.slot?.summary;
  if (!request || (request.status !== 'needed' && request.status !== 'heuristic')) return plan;
  const text = request.status === 'heuristic' ? slotText(plan) : await summarize(rt, ctx, provider, request, signal);
  if (!text) return plan;
  await appendMessage(rt, {
    conversationId,
    role: 'assistant',
    kind: 'summary',
    content: [{ type: 'text', text: summaryMessage(text).content }],
    covers: request.covers,
    model: request.status === 'heuristic' ? undefined : ctx.settings.window.summaryModel || ctx.modelId,
  });
  return planFor(ctx, history());
}

function slotText(plan: ContextPlan): string | null {
  const item = plan.messages.find((m: PlanItem) => m.id === SLOT_ITEM_ID);
  const content = item?.message.content;
  return typeof content === 'string' ? content : null;
}

async function summarize(rt: Runtime, ctx: TurnContext, provider: ChatProvider, request: SummaryRequest, signal: AbortSignal): Promise<string | null> {
  const repository = repo(rt);
  const kind = request.prompt ?? 'concise';
  const key = summaryCacheKey(kind, request.messages, request.previous?.text);
  const cached = await repository?.getCachedSummary(key).catch(() => undefined);
  if (cached) return cached;
  try {
    const model = ctx.settings.window.summaryModel || ctx.modelId;
    const maxTokens = Math.min(request.maxTokens, ctx.model.maxOutputTokens);
    const window = ctx.settings.window.summaryModel ? resolveModelInfo(model, { provider: ctx.provider }).contextWindow : ctx.model.contextWindow;
    // A small window (the Demo's 4,000 tokens, a local model's) cannot read every evicted
    // message at once: summarize them in batches that fit, each extending the summary so far.
    // The estimate is calibrated for the chat model and given a tenth more for safety.
    const fits = (batch: WindowMessage[], previous: string | undefined) =>
      Math.ceil(estimateTextTokens(buildSummaryPrompt(kind, batch, previous)) * ctx.calibrationFactor * 1.1) + maxTokens <= window;
    let summary = request.previous?.text;
    let batch: WindowMessage[] = [];
    const write = async () => {
      const text = (await provider.complete(buildSummaryPrompt(kind, batch, summary), { model, maxTokens, signal })).trim();
      if (!text) throw new WindowpaneError('provider', 'the summary came back empty');
      summary = text;
      batch = [];
    };
    for (const message of request.messages) {
      if (batch.length > 0 && !fits([...batch, message], summary)) await write();
      batch.push(message);
    }
    if (batch.length > 0) await write();
    if (!summary) throw new WindowpaneError('provider', 'the summary came back empty');
    await repository?.setCachedSummary(key, summary).catch(() => undefined);
    return summary;
  } catch (error) {
    if (signal.aborted) return null;
    const reason = error instanceof Error ? error.message : String(error);
    notify(rt, { tone: 'warning', text: `Summarizing failed (${reason}); the oldest messages were trimmed instead.` });
    return null;
  }
}

/** Streams a new answer into the last assistant message. */
export async function regenerate(rt: Runtime, messageId: string): Promise<void> {
  const state = rt.store.getState();
  const conversationId = state.activeId;
  if (!conversationId) return;
  const list = state.messages[conversationId] ?? [];
  const target = list.find((m) => m.id === messageId);
  if (!target || target.role !== 'assistant' || target.kind !== 'message') return;
  const later = list.filter((m) => m.seq > target.seq && m.kind === 'message');
  if (later.length > 0) {
    notify(rt, { tone: 'info', text: 'Only the latest answer can be regenerated.' });
    return;
  }
  await respond(rt, conversationId, target);
}

/**
 * Edits a user message and asks again. The newest user message, answered by one plain
 * answer, is changed in place and its answer regenerated; any other (an older one, or one
 * answered through tool calls) is sent again as a new message at the end, so the history
 * after it is never lost and every tool call keeps its result.
 */
export async function editAndResend(rt: Runtime, messageId: string, text: string): Promise<void> {
  const state = rt.store.getState();
  const conversationId = state.activeId;
  if (!conversationId || state.sendingId) return;
  const list = state.messages[conversationId] ?? [];
  const target = list.find((m) => m.id === messageId);
  if (!target || target.role !== 'user' || carriesToolResults(target)) return;
  const lastUser = [...list].reverse().find((m) => m.role === 'user' && m.kind === 'message' && !carriesToolResults(m));
  const later = list.filter((m) => m.seq > target.seq && m.kind === 'message');
  if (lastUser?.id !== target.id || later.length > 1) {
    await send(rt, conversationId, text);
    return;
  }
  await updateMessage(rt, target, { content: [{ type: 'text', text }] });
  const answer = list.find((m) => m.seq > target.seq && m.role === 'assistant' && m.kind === 'message');
  await respond(rt, conversationId, answer);
}

/** A user message that answers tool calls rather than being something the user wrote. */
function carriesToolResults(message: StoredMessage): boolean {
  return message.content.some((block) => block.type === 'tool_result');
}

/** Writes the summary again from the messages it covers. */
export async function regenerateSummary(rt: Runtime, summaryId: string): Promise<void> {
  const state = rt.store.getState();
  const conversationId = state.activeId;
  if (!conversationId || state.sendingId) return;
  const list = state.messages[conversationId] ?? [];
  const summary = list.find((m) => m.id === summaryId);
  if (!summary?.covers?.length) return;
  const ctx = contextFor(rt, conversationId);
  const covered = new Set(summary.covers);
  const messages = buildHistory(list.filter((m) => covered.has(m.id)), ctx.wireShape, '').map((i) => i.message);
  rt.store.setState({ sendingId: conversationId });
  try {
    const provider = await rt.deps.createProvider(ctx.providerSettings);
    const text = (await provider.complete(buildSummaryPrompt('concise', messages), { model: ctx.settings.window.summaryModel || ctx.modelId, maxTokens: Math.min(ctx.settings.window.summaryMaxTokens, ctx.model.maxOutputTokens) })).trim();
    if (text) await updateMessage(rt, summary, { content: [{ type: 'text', text: summaryMessage(text).content }] });
  } catch (error) {
    reportError(rt, error, 'regenerate the summary');
  } finally {
    rt.store.setState({ sendingId: null });
  }
}

/** Pinned messages are never evicted by any strategy. */
export async function togglePin(rt: Runtime, messageId: string): Promise<void> {
  const state = rt.store.getState();
  for (const list of Object.values(state.messages)) {
    const message = list.find((m) => m.id === messageId);
    if (message) {
      await updateMessage(rt, message, { pinned: !message.pinned });
      return;
    }
  }
}

export { messageText };
