import { elementScroll, useVirtualizer } from '@tanstack/react-virtual';
import { lazy, Suspense, useEffect, useLayoutEffect, useRef } from 'react';
import { ErrorBoundary } from 'react-error-boundary';
import type { TranscriptRow } from '../store';
import { MessageFallback } from './MessageFallback';
import { MessageView, type MessageViewProps } from './MessageView';
import { TrimNotice } from './TrimNotice';

// Only a conversation with a summary shows one: its code loads with the first.
const SummaryMessage = lazy(() => import('./SummaryMessage').then((module) => ({ default: module.SummaryMessage })));

/** What the row being streamed shows: its text, and its thinking with when it began and, once the answer began, how long it took. */
export interface TranscriptStreaming {
  messageId: string;
  text: string;
  thinking: string;
  thinkingStartedAt?: number;
  thinkingMs?: number;
}

export interface TranscriptProps {
  rows: TranscriptRow[];
  /** The message being streamed, and what has streamed so far (only that row re-renders per delta). */
  streaming?: TranscriptStreaming;
  onEdit?: (id: string, text: string) => boolean | void;
  onRegenerate?: (id: string) => void;
  onRegenerateSummary?: (id: string) => void;
  onTogglePin?: (id: string) => void;
  /** Shows the previous (-1) or next (1) version of a message. */
  onSwitchVersion?: (id: string, step: -1 | 1) => void;
  busy?: boolean;
  /** This conversation's turn is running (its tool calls may still be waiting for results). */
  sendingHere?: boolean;
}

/**
 * The conversation, virtualized: only the rows in view are in the DOM, so a
 * 5,000-message conversation opens as fast as a short one. Sticks to the bottom while
 * new text arrives unless the reader has scrolled up.
 */
export function Transcript({ rows, streaming, onEdit, onRegenerate, onRegenerateSummary, onTogglePin, onSwitchVersion, busy, sendingHere }: TranscriptProps) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const stickToBottom = useRef(true);
  const lastScrollTop = useRef(0);
  // Where the virtualizer itself last scrolled to: following the bottom, and correcting the
  // offset when rows above the view are measured (a dimmed row, a notice, a taller answer).
  const ownScrollTarget = useRef<number | undefined>(undefined);
  // The app is not built with the React Compiler; the virtualizer re-renders through its own state.
  // eslint-disable-next-line react-hooks/incompatible-library
  const virtualizer = useVirtualizer({
    count: rows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => 120,
    overscan: 6,
    getItemKey: (index) => rows[index]?.key ?? index,
    initialRect: { width: 800, height: 800 },
    scrollToFn: (offset, options, instance) => {
      ownScrollTarget.current = offset + (options.adjustments ?? 0);
      elementScroll(offset, options, instance);
    },
  });

  // Open at the newest messages.
  useLayoutEffect(() => {
    if (rows.length > 0) virtualizer.scrollToIndex(rows.length - 1, { align: 'end' });
    // Only when the conversation changes identity (first row key), not on every row.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [rows[0]?.key]);

  // Sending shows the message sent and its answer, wherever the reader was.
  const newest = rows.at(-1);
  const newestSent = newest?.kind === 'message' && newest.message.role === 'user' ? newest.key : undefined;
  useLayoutEffect(() => {
    if (newestSent) stickToBottom.current = true;
  }, [newestSent]);

  // Rows also grow without new text (an error shown in a failed answer, a row measured
  // taller than estimated), so follow the total size too.
  const totalSize = virtualizer.getTotalSize();
  useEffect(() => {
    if (stickToBottom.current && rows.length > 0) virtualizer.scrollToIndex(rows.length - 1, { align: 'end' });
  }, [rows.length, streaming?.text.length, streaming?.thinking.length, totalSize, virtualizer]);

  const items = virtualizer.getVirtualItems();
  return (
    <div
      ref={scrollRef}
      className="transcript"
      role="log"
      aria-label="Transcript"
      aria-live="off"
      onScroll={(e) => {
        const el = e.currentTarget;
        // Only the reader scrolling up stops the following, and reaching the bottom resumes
        // it. The virtualizer's own corrections also move up when rows above shrink; under
        // load those once stopped the following, and later answers were never rendered.
        const ownTarget = ownScrollTarget.current;
        ownScrollTarget.current = undefined;
        const ours = ownTarget !== undefined && Math.abs(el.scrollTop - ownTarget) < 2;
        if (el.scrollHeight - el.scrollTop - el.clientHeight < 80) stickToBottom.current = true;
        else if (el.scrollTop < lastScrollTop.current && !ours) stickToBottom.current = false;
        lastScrollTop.current = el.scrollTop;
      }}
    >
      <div className="transcript-inner" style={{ height: totalSize }}>
        <div className="transcript-window" style={{ transform: `translateY(${items[0]?.start ?? 0}px)` }}>
          {items.map((item) => {
            const row = rows[item.index];
            if (!row) return null;
            return (
              <div key={item.key} data-index={item.index} ref={virtualizer.measureElement} className="transcript-row">
                {row.kind !== 'trim' ? (
                  // One message that cannot be rendered shows its plain text; the others render as usual.
                  <ErrorBoundary fallbackRender={() => <MessageFallback message={row.message} />} resetKeys={[row.message]}>
                    {row.kind === 'message' ? (
                      <MessageView
                        message={row.message}
                        tokens={row.tokens}
                        notSent={row.notSent}
                        toolResults={row.toolResults}
                        toolsPending={sendingHere && item.index === rows.length - 1}
                        streamingText={streaming?.messageId === row.message.id ? streaming.text : undefined}
                        streamingThinking={streaming?.messageId === row.message.id ? streamingThinking(streaming) : undefined}
                        onEdit={busy ? undefined : onEdit}
                        onRegenerate={busy ? undefined : onRegenerate}
                        onTogglePin={onTogglePin}
                        versions={row.versions}
                        imagesNotSent={row.imagesNotSent}
                        onSwitchVersion={busy ? undefined : onSwitchVersion}
                      />
                    ) : (
                      <Suspense fallback={null}>
                        <SummaryMessage message={row.message} onRegenerate={onRegenerateSummary} busy={busy} />
                      </Suspense>
                    )}
                  </ErrorBoundary>
                ) : (
                  <TrimNotice row={row} />
                )}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}

function streamingThinking({ thinking, thinkingStartedAt, thinkingMs }: TranscriptStreaming): MessageViewProps['streamingThinking'] {
  return thinkingStartedAt === undefined ? undefined : { text: thinking, since: thinkingStartedAt, ms: thinkingMs };
}
