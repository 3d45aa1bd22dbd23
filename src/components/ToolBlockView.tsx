import type { ContentBlock } from '../core';

const MAX_PREVIEW = 4000;

function clip(text: string): string {
  return text.length > MAX_PREVIEW ? `${text.slice(0, MAX_PREVIEW)}\n… (${(text.length - MAX_PREVIEW).toLocaleString()} more characters)` : text;
}

/** A thinking block, or a tool result whose call is not in the transcript, collapsed to one line until opened. */
export function ToolBlockView({ block }: { block: Exclude<ContentBlock, { type: 'text' | 'tool_use' | 'image' }> }) {
  switch (block.type) {
    case 'tool_result':
      return (
        <details className={`tool-block${block.is_error ? ' tool-error' : ''}`}>
          <summary>{block.is_error ? 'Tool error' : 'Tool result'}</summary>
          <pre>{clip(block.content)}</pre>
        </details>
      );
    case 'thinking':
      return (
        <details className="tool-block thinking">
          <summary>Thinking</summary>
          <pre>{clip(block.thinking)}</pre>
        </details>
      );
    case 'redacted_thinking':
      return <p className="tool-block thinking">Thinking (redacted by the provider)</p>;
  }
}
