import { forwardRef, lazy, Suspense, useDeferredValue, useEffect, useMemo } from 'react';
import { useShallow } from 'zustand/react/shallow';
import {
  branchOf,
  chatView,
  leafOf,
  treeOf,
  clearedToolCalls,
  contextOf,
  draftTokens,
  exactCountView,
  holdsPdfs,
  nearALimit,
  openingRows,
  pairToolResults,
  requestKeyOf,
  screenPlan,
  withExactCount,
  type AttachmentInfo,
} from '../store';
import { useActions, useApp } from './AppRuntime';
import type { StoredMessage } from '../core';
import { Composer } from './Composer';
import { ThinkingPicker } from './ThinkingPicker';
import { TokenGauge } from './TokenGauge';
import { Transcript } from './Transcript';
import { Welcome } from './Welcome';

/** The prompt before an MCP tool runs: a chunk of its own, loaded with the first call to ask about. */
const McpApprovalPrompt = lazy(() => import('./McpApprovalPrompt'));

const NO_MESSAGES: StoredMessage[] = [];
const NO_ATTACHMENTS: AttachmentInfo[] = [];

/** The open conversation: transcript, gauge and composer, all reading one plan. */
export const ChatPane = forwardRef<HTMLTextAreaElement>(function ChatPane(_props, composerRef) {
  const actions = useActions();
  // The open conversation, not the list: one arriving elsewhere does not plan this one again.
  const { activeId, settings, conversation, sendingId, streaming, lastUsage } = useApp(
    useShallow((s) => ({
      activeId: s.activeId,
      settings: s.settings,
      conversation: s.conversations.find((c) => c.id === s.activeId),
      sendingId: s.sendingId,
      streaming: s.streaming,
      lastUsage: s.activeId ? s.lastUsage[s.activeId] : undefined,
    })),
  );
  const all = useApp((s) => (s.activeId ? (s.messages[s.activeId] ?? NO_MESSAGES) : NO_MESSAGES));
  const leaf = useApp((s) => (s.activeId ? leafOf(s, s.activeId) : undefined));
  const tree = useMemo(() => treeOf(all), [all]);
  // The branch shown: every request, the gauge and the transcript read it; the other branches stay stored.
  const messages = useMemo(() => branchOf(tree, leaf), [tree, leaf]);
  const attachments = useApp((s) => (s.activeId ? (s.attachments[s.activeId] ?? NO_ATTACHMENTS) : NO_ATTACHMENTS));
  const keptDraft = useApp((s) => s.draft);
  const draft = useDeferredValue(keptDraft);
  // The calibration learned from the last answer changes the counts, so the plan is made again with it:
  // otherwise the transcript marked a different set of cleared tool results than the next request sent.
  const calibration = useApp((s) => s.calibration);
  // An endpoint that refused tools is sent none, so its definitions leave the gauge too.
  const toolsRefused = useApp((s) => s.toolsRefused);
  // A model that refused images is sent none: the transcript marks them not sent.
  const imagesRefused = useApp((s) => s.imagesRefused);
  // A window the model's endpoint listed is the one planned with.
  const modelLists = useApp((s) => s.modelLists);
  const mcpTools = useApp((s) => s.mcpTools);
  const approval = useApp((s) => s.mcpApproval);
  // Tools offered can depend on whether files are attached.
  const hasAttachments = attachments.length > 0 || holdsPdfs(messages);
  const ctx = useMemo(
    () => contextOf({ settings, conversation, messages, hasAttachments, calibration, toolsRefused, imagesRefused, modelLists, mcpTools }),
    [settings, conversation, messages, hasAttachments, calibration, toolsRefused, imagesRefused, modelLists, mcpTools],
  );
  const draftImages = useApp((s) => s.draftImages);
  const draftPdfs = useApp((s) => s.draftPdfs);
  const draftCount = draftTokens(draft, draftImages, ctx.wireShape, ctx.modelId, draftPdfs, ctx.pdfAs);
  // The in-flight answer is not part of the next request; plan from what is complete.
  // A setting planning cannot use leaves the conversation on screen, with the reason (`problem`).
  const { view, problem } = useMemo(() => {
    const { plan, problem } = screenPlan(ctx, messages, draftCount);
    return { view: chatView(ctx, messages, plan, lastUsage, draftCount, tree), problem };
  }, [ctx, messages, draftCount, lastUsage, tree]);
  // A long conversation being read shows its newest messages first, read-only, with the gauge counting.
  const reading = useApp((s) => (s.opening && s.opening.conversationId === s.activeId && !s.messages[s.opening.conversationId] ? s.opening : undefined));
  const opening = useMemo(() => (reading ? openingRows(ctx, reading.newest, reading.leafId) : undefined), [ctx, reading]);
  const planned = useMemo(() => pairToolResults(view.rows, clearedToolCalls(view.plan), view.providerClears), [view.rows, view.plan, view.providerClears]);
  const rows = opening && opening.length > 0 ? opening : planned;
  // A conversation not read yet shows an empty transcript, not the welcome of a new chat.
  const unread = useApp((s) => s.activeId !== null && s.messages[s.activeId] === undefined);

  const busy = sendingId !== null;
  const isStreamingHere = busy && sendingId === activeId;

  // The provider's count of the request as it stands, kept under the request's key: shown only while it is that request.
  const requestKey = useMemo(() => requestKeyOf(ctx, view.plan), [ctx, view.plan]);
  const count = useApp((s) => s.requestCounts[requestKey]);
  const exactCount = exactCountView(ctx.provider, count);
  const canAsk = activeId !== null && !problem && !isStreamingHere && rows !== opening && (exactCount.kind === 'exact' || exactCount.canCount);
  const countJob = useMemo(
    () => (canAsk && activeId ? { conversationId: activeId, ctx, plan: view.plan, key: requestKey } : undefined),
    [canAsk, activeId, ctx, view.plan, requestKey],
  );
  // Near a limit the estimate may be on the wrong side of it: the provider counts, in the background.
  const countNow = countJob !== undefined && count === undefined && nearALimit(view.plan.metrics);
  useEffect(() => {
    if (countNow && countJob) actions.countRequest({ ...countJob, asked: false });
  }, [countNow, countJob, actions]);

  return (
    <>
      {activeId && rows.length > 0 ? (
        <Transcript
          rows={rows}
          sendingHere={isStreamingHere}
          streaming={streaming && streaming.conversationId === activeId ? streaming : undefined}
          busy={busy || rows === opening}
          onEdit={(id, text) => actions.editAndResend(id, text)}
          onRegenerate={(id) => void actions.regenerate(id)}
          onRegenerateSummary={(id) => void actions.regenerateSummary(id)}
          onTogglePin={(id) => void actions.togglePin(id)}
          onSwitchVersion={(id, step) => void actions.switchVersion(id, step)}
        />
      ) : unread ? (
        <div className="transcript" role="log" aria-label="Transcript" aria-busy="true" />
      ) : (
        <Welcome isDemo={ctx.provider === 'demo'} onAddKey={actions.openSettings} onTry={(text) => void actions.send(activeId, text)} />
      )}
      {problem && (
        <div className="notice notice-error chat-problem" role="alert">
          <span>{problem}</span>
          <button type="button" onClick={actions.openSettings}>
            Open Settings
          </button>
        </div>
      )}
      <div className="context-bar">
        <TokenGauge
          {...withExactCount(view.gauge, view.plan, exactCount)}
          counting={rows === opening}
          exactCount={exactCount}
          onCountExactly={countJob ? () => actions.countRequest({ ...countJob, asked: true }) : undefined}
        />
        <ThinkingPicker
          provider={ctx.provider}
          modelId={ctx.model.id}
          maxOutputTokens={ctx.model.maxOutputTokens}
          value={ctx.thinkingSetting}
          onChange={(setting) => void actions.setThinking(setting)}
        />
      </div>
      {approval?.conversationId === activeId && (
        <Suspense>
          <McpApprovalPrompt approval={approval} />
        </Suspense>
      )}
      <Composer
        ref={composerRef}
        streaming={isStreamingHere}
        disabled={busy && !isStreamingHere}
        onStop={() => activeId && actions.stop(activeId)}
        onSend={(text) => actions.send(activeId, text)}
        onDraftChange={actions.setDraft}
        draft={keptDraft}
        onFocus={actions.prepareSend}
        attachments={attachments}
        images={draftImages}
        imagePricing={{ shape: ctx.wireShape, model: ctx.modelId, pdfAs: ctx.pdfAs }}
        onPasteImages={(files) => void actions.attachFiles(activeId, files)}
        onRemoveImage={actions.removeDraftImage}
        pdfs={draftPdfs}
        onRemovePdf={actions.removeDraftPdf}
        onAttach={(files) => void actions.attachFiles(activeId, files)}
        onRemoveAttachment={(id) => activeId && void actions.removeAttachment(activeId, id)}
      />
    </>
  );
});
