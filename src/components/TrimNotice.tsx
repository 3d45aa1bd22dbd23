import type { TranscriptRow } from '../store';

/** The trim row (see `TranscriptRow`): how many messages, why, and who left them out. */
export interface TrimNoticeProps {
  row: Extract<TranscriptRow, { kind: 'trim' }>;
}

/** Marks where the window's cut falls in the transcript. */
export function TrimNotice({ row }: TrimNoticeProps) {
  const { evicted, summarized, reason, strategy, compactedBy, compactedTokens } = row;
  if (compactedBy) {
    const name = compactedBy === 'anthropic' ? 'Anthropic' : 'OpenAI';
    const size = compactedTokens ? ` (${compactedTokens.toLocaleString('en-US')} tokens)` : '';
    return (
      <div role="note" className="trim-notice" aria-label="Trim notice">
        <span>
          {name} compacted the {evicted.toLocaleString('en-US')} earlier message{evicted === 1 ? '' : 's'}
          {size} into its summary below; requests send the summary in their place.
        </span>
        <span className="muted"> They stay in the conversation.</span>
      </div>
    );
  }
  const text = summarized ? `${evicted} message${evicted === 1 ? '' : 's'} summarized` : `[${evicted} earlier messages truncated to fit context window]`;
  return (
    <div role="note" className="trim-notice" aria-label="Trim notice">
      <span>{text}</span>
      {reason && <span className="muted"> — {reason}</span>}
      {strategy && <span className="muted trim-strategy">[History compacted using {strategy} strategy]</span>}
    </div>
  );
}
