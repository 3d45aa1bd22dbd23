import type { ToolResultBlock } from '../core';

const MAX_PREVIEW = 4000;

function clip(text: string): string {
  return text.length > MAX_PREVIEW ? `${text.slice(0, MAX_PREVIEW)}\n… (${(text.length - MAX_PREVIEW).toLocaleString()} more characters)` : text;
}

/** A tool result whose call is not in the transcript, collapsed to one line until opened (thinking is `ThinkingBlock`'s). */
export function ToolBlockView({ block }: { block: ToolResultBlock }) {
  return (
    <details className={`tool-block${block.is_error ? ' tool-error' : ''}`}>
      <summary>{block.is_error ? 'Tool error' : 'Tool result'}</summary>
      <pre>{clip(block.content)}</pre>
    </details>
  );
}
