import { lazy, memo, Suspense, useDeferredValue, useState } from 'react';
import type { CompactionBlock, DocumentBlock, ImageBlock, ProviderToolBlock, StoredMessage, ToolResultBlock, ToolUseBlock } from '../core';
import { messageText, reasoningTokensOf, thinkingOf, wholeCount } from '../core';
import type { ToolResultView } from '../store';
import { ToolBlockView } from './ToolBlockView';
import { ToolCallView } from './ToolCallView';
import { useCopyText } from './useCopyText';
import { LazyMarkdown, LazyUserText } from './LazyMarkdown';

// Only an answer the provider compacted shows one: its code loads with the first.
const CompactionView = lazy(() => import('./CompactionView'));
// Likewise an answer that thought, and a message with images or PDFs; `loadMessageParts` loads
// them while the page is idle, so the first that shows one does not wait.
const thinkingPart = () => import('./ThinkingBlock');
const imagesPart = () => import('./MessageImages');
const documentsPart = () => import('./MessageDocuments');
const ThinkingBlock = lazy(() => thinkingPart().then((module) => ({ default: module.ThinkingBlock })));
const MessageImages = lazy(() => imagesPart().then((module) => ({ default: module.MessageImages })));
const MessageDocuments = lazy(() => documentsPart().then((module) => ({ default: module.MessageDocuments })));

/** Loads the parts only some messages show (thinking, images, PDFs), ahead of the first that does. */
export function loadMessageParts(): Promise<unknown> {
  return Promise.all([thinkingPart(), imagesPart(), documentsPart()]);
}

export interface MessageViewProps {
  message: StoredMessage;
  /** Text streamed so far, when this message is being written now. */
  streamingText?: string;
  /** Thinking streamed so far, when this message is being written now: its text, when it began, and its time once the answer began. */
  streamingThinking?: { text: string; since?: number; ms?: number };
  /** Estimated tokens of this message as the next request would count it. */
  tokens?: number;
  /** Outside the window: the next request will not include it. */
  notSent?: boolean;
  /** Results of this message's tool calls, by tool_use id, shown under each call. */
  toolResults?: Readonly<Record<string, ToolResultView>>;
  /** The turn is still running: a tool call without a result is waiting for it. */
  toolsPending?: boolean;
  /** Returns false when the edit was not sent (offline, say): the edit box stays open with the text. */
  onEdit?: (id: string, text: string) => boolean | void;
  onRegenerate?: (id: string) => void;
  onTogglePin?: (id: string) => void;
  /** Where the message stands among its versions (edits, regenerations), when it has others. */
  versions?: { index: number; count: number };
  /** Shows the previous (-1) or next (1) version; absent while an answer is being written. */
  onSwitchVersion?: (id: string, step: -1 | 1) => void;
  /** File ids of its images the next request leaves out. */
  imagesNotSent?: readonly string[];
}

const STATUS_NOTE: Partial<Record<StoredMessage['status'], string>> = {
  stopped: 'Stopped',
  interrupted: 'Interrupted — the page closed while this answer was streaming',
  streaming: 'Writing…',
};

/** One user or assistant message: markdown, tool calls, token badge and actions. */
export const MessageView = memo(function MessageView({
  message,
  streamingText,
  streamingThinking,
  tokens,
  notSent,
  toolResults,
  toolsPending,
  onEdit,
  onRegenerate,
  onTogglePin,
  versions,
  onSwitchVersion,
  imagesNotSent,
}: MessageViewProps) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState('');
  const { copied, copy } = useCopyText();
  const isUser = message.role === 'user';
  const label = isUser ? 'User message' : 'Assistant message';
  const text = streamingText ?? messageText(message);
  // Markdown parses the whole text again for every delta; deferred, React drops the renders a
  // newer delta has made stale, so a long answer streams without freezing the page.
  const shownText = useDeferredValue(text);
  const blocks = message.content.filter(
    (b): b is ToolUseBlock | ToolResultBlock | ProviderToolBlock => b.type === 'tool_use' || b.type === 'tool_result' || b.type === 'provider_tool',
  );
  const thinking = streamingThinking ? { text: streamingThinking.text, redacted: 0 } : thinkingOf(message);
  const thinkingMs = streamingThinking ? streamingThinking.ms : wholeCount(message.thinkingMs);
  const reasoning = reasoningTokensOf(message.usage);
  const images = message.content.filter((b): b is ImageBlock => b.type === 'image');
  const documents = message.content.filter((b): b is DocumentBlock => b.type === 'document');
  const compaction = message.content.find((b): b is CompactionBlock => b.type === 'compaction');
  const note = STATUS_NOTE[message.status];

  return (
    <article
      aria-label={label}
      className={`message ${isUser ? 'message-user' : 'message-assistant'}${notSent ? ' not-sent' : ''}`}
      data-message-id={message.id}
      data-status={message.status}
    >
      <header className="message-meta">
        <span className="message-role">{isUser ? 'You' : (message.model ?? 'Assistant')}</span>
        {notSent && (
          <span className="badge badge-muted" title="Outside the context window: the next request will not include this message">
            not sent
          </span>
        )}
        {message.pinned && <span className="badge">pinned</span>}
        {tokens !== undefined && (
          <span className="badge badge-muted" title={tokensTitle(message)}>
            {tokens.toLocaleString()} tok
          </span>
        )}
        {reasoning !== undefined && reasoning > 0 && (
          <span
            className="badge badge-muted"
            title={`Of the ${message.usage!.outputTokens.toLocaleString()} output tokens the provider reported for this answer, ${reasoning.toLocaleString()} were reasoning (billed as output)`}
          >
            {message.usage!.outputTokens.toLocaleString()} out, of which {reasoning.toLocaleString()} reasoning
          </span>
        )}
        {note && <span className={`badge badge-status status-${message.status}`}>{note}</span>}
        {versions && <VersionSwitch id={message.id} versions={versions} onSwitch={onSwitchVersion} />}
      </header>
      {editing ? (
        <form
          className="edit-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (draft.trim() && onEdit?.(message.id, draft) === false) return;
            setEditing(false);
          }}
        >
          <textarea aria-label="Edit message" value={draft} onChange={(e) => setDraft(e.target.value)} rows={Math.min(12, draft.split('\n').length + 1)} />
          <div className="row">
            <button type="submit">Save and resend</button>
            <button type="button" onClick={() => setEditing(false)}>
              Cancel
            </button>
          </div>
        </form>
      ) : (
        <div className="message-body">
          {compaction && (
            <Suspense fallback={null}>
              <CompactionView block={compaction} />
            </Suspense>
          )}
          {(documents.length > 0 || images.length > 0) && (
            <Suspense fallback={null}>
              {documents.length > 0 && <MessageDocuments documents={documents} notSent={imagesNotSent} />}
              {images.length > 0 && <MessageImages images={images} notSent={imagesNotSent} />}
            </Suspense>
          )}
          {(thinking.text || thinking.redacted > 0 || streamingThinking?.since !== undefined) && (
            <Suspense fallback={null}>
              <ThinkingBlock thinking={thinking} thinkingMs={thinkingMs} thinkingSince={streamingThinking?.since} />
            </Suspense>
          )}
          {text &&
            (isUser ? (
              // A user's message is shown as typed, apart from its formulas.
              <Suspense fallback={<p className="plain">{text}</p>}>
                <LazyUserText text={text} />
              </Suspense>
            ) : (
              <Suspense fallback={<p className="plain">{text}</p>}>
                <LazyMarkdown text={shownText} />
              </Suspense>
            ))}
          {blocks.map((b, i) =>
            b.type === 'tool_use' ? (
              <ToolCallView key={b.id} call={b} result={toolResults?.[b.id]} pending={toolsPending} />
            ) : b.type === 'provider_tool' ? (
              <ToolCallView key={`p${i}`} {...providerCallView(b)} />
            ) : (
              <ToolBlockView key={`b${i}`} block={b} />
            ),
          )}
          {message.error && (
            <p className="message-error" role="alert">
              {message.error.message}
            </p>
          )}
        </div>
      )}
      {/* A step of a tool loop that only calls tools has nothing to copy or edit: no actions, so the loop stays compact. */}
      {!editing && message.status !== 'streaming' && (text || !blocks.some((b) => b.type === 'tool_use')) && (
        <footer className="message-actions">
          <button type="button" onClick={() => copy(text)}>
            {copied ? 'Copied' : 'Copy'}
          </button>
          {isUser && onEdit && (
            <button
              type="button"
              onClick={() => {
                setDraft(text);
                setEditing(true);
              }}
            >
              Edit
            </button>
          )}
          {!isUser && onRegenerate && (
            <button type="button" onClick={() => onRegenerate(message.id)}>
              Regenerate
            </button>
          )}
          {onTogglePin && (
            <button type="button" aria-pressed={Boolean(message.pinned)} onClick={() => onTogglePin(message.id)}>
              {message.pinned ? 'Unpin' : 'Pin'}
            </button>
          )}
        </footer>
      )}
    </article>
  );
});

/**
 * The token badge's tooltip: the estimate it shows, and for an answer what the provider
 * reported of its output. Anthropic bills thinking inside the output without a count of its own.
 */
/** A call the provider ran, shown as the page's own calls are (its output as plain text), marked as the provider's. */
function providerCallView(block: ProviderToolBlock) {
  const id = block.id || `${block.server}.${block.name}`;
  return {
    call: { type: 'tool_use' as const, id, name: block.name, input: block.input },
    result: { block: { type: 'tool_result' as const, tool_use_id: id, content: block.output, is_error: block.isError }, cleared: false },
    ranBy: { provider: block.provider === 'anthropic' ? 'Anthropic' : 'OpenAI', server: block.server },
  };
}

function tokensTitle(message: StoredMessage): string {
  const estimate = 'Estimated tokens of this message';
  const usage = message.role === 'assistant' ? message.usage : undefined;
  if (!usage) return estimate;
  const reasoning = reasoningTokensOf(usage);
  const output = `${usage.outputTokens.toLocaleString()} output tokens reported by the provider`;
  if (reasoning) return `${estimate}. ${output}, of which ${reasoning.toLocaleString()} reasoning.`;
  const thought = message.content.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking');
  return thought && message.provider === 'anthropic' ? `${estimate}. ${output}, thinking included (not itemized by Anthropic).` : `${estimate}. ${output}.`;
}

/** "‹ 2 / 3 ›": which version of the message this is, and the way to the others. */
function VersionSwitch({ id, versions, onSwitch }: { id: string; versions: { index: number; count: number }; onSwitch?: (id: string, step: -1 | 1) => void }) {
  const { index, count } = versions;
  return (
    <span className="versions" role="group" aria-label={`Version ${index + 1} of ${count}`}>
      <button type="button" className="version-step" aria-label="Previous version" disabled={!onSwitch || index === 0} onClick={() => onSwitch?.(id, -1)}>
        ‹
      </button>
      <span className="version-count">
        {index + 1} / {count}
      </span>
      <button type="button" className="version-step" aria-label="Next version" disabled={!onSwitch || index >= count - 1} onClick={() => onSwitch?.(id, 1)}>
        ›
      </button>
    </span>
  );
}
