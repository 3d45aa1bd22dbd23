export interface TrimNoticeProps {
  /** Messages before this point that the next request leaves out. */
  evicted: number;
  /** Whether a summary stands in for them. */
  summarized: boolean;
  /** Why they were left out, in words (e.g. "over 80 % of the context window"). */
  reason?: string;
  /** The strategy that compacted the history, named as the compaction event. */
  strategy?: string;
}

/** Marks where the window's cut falls in the transcript. */
export function TrimNotice({ evicted, summarized, reason, strategy }: TrimNoticeProps) {
  const text = summarized ? `${evicted} message${evicted === 1 ? '' : 's'} summarized` : `[${evicted} earlier messages truncated to fit context window]`;
  return (
    <div role="note" className="trim-notice" aria-label="Trim notice">
      <span>{text}</span>
      {reason && <span className="muted"> — {reason}</span>}
      {strategy && <span className="muted trim-strategy">[History compacted using {strategy} strategy]</span>}
    </div>
  );
}
