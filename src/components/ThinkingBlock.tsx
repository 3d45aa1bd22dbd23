import { useEffect, useState } from 'react';
import { formatThinkingTime, thinkingSummary } from '../core';
import { useCopyText } from './useCopyText';

export interface ThinkingBlockProps {
  /** The answer's thinking as `thinkingOf` reads it (a reasoning summary arrives the same way). */
  thinking: { text: string; redacted: number };
  /** How long it thought, once known. */
  thinkingMs?: number;
  /** Still thinking: when it began (epoch ms); the label then counts the seconds. */
  thinkingSince?: number;
}

/**
 * An answer's thinking, above the answer and collapsed until opened: "Thinking · 1,240
 * words · 8 s", or "Thinking… 3 s" while it streams. Opened, it shows the thinking and a
 * button that copies it, so the message's own Copy keeps to the answer.
 */
export function ThinkingBlock({ thinking, thinkingMs, thinkingSince }: ThinkingBlockProps) {
  const { copied, copy } = useCopyText();
  const live = thinkingSince !== undefined && thinkingMs === undefined;
  const seconds = useSecondsSince(live ? thinkingSince : undefined);
  const label = live ? `Thinking… ${formatThinkingTime(seconds * 1000)}` : thinkingSummary(thinking, thinkingMs);

  return (
    <details className="thinking-block">
      <summary>
        {/* Read once when it changes state, not every second while it ticks. */}
        <span aria-live="off">{label}</span>
      </summary>
      {thinking.text && <div className="thinking-text">{thinking.text}</div>}
      {thinking.redacted > 0 && (
        <p className="thinking-redacted">
          {thinking.redacted === 1 ? 'One part' : `${thinking.redacted} parts`} of the thinking {thinking.redacted === 1 ? 'was' : 'were'} redacted by the
          provider; {thinking.redacted === 1 ? 'it is' : 'they are'} kept encrypted and sent back unchanged.
        </p>
      )}
      {thinking.text && !live && (
        <button type="button" className="thinking-copy" onClick={() => copy(thinking.text)}>
          {copied ? 'Copied' : 'Copy thinking'}
        </button>
      )}
    </details>
  );
}

/** Whole seconds since `since`, counted once a second; 0 when `since` is undefined. */
function useSecondsSince(since: number | undefined): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (since === undefined) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [since]);
  return since === undefined ? 0 : Math.max(0, Math.floor((now - since) / 1000));
}
