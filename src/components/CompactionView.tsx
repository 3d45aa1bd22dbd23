import { Suspense } from 'react';
import type { CompactionBlock } from '../core';
import { LazyMarkdown } from './LazyMarkdown';

const PROVIDER_NAME = { anthropic: 'Anthropic', openai: 'OpenAI' } as const;

/** The summary inside the tags Anthropic's default prompt asks for, or the whole text. */
function summaryBody(summary: string): string {
  const tagged = /<summary>([\s\S]*?)<\/summary>/.exec(summary);
  return (tagged?.[1] ?? summary).trim();
}

/**
 * The provider's compaction at the start of an answer: it stands for everything before it in
 * every request that sends it. Anthropic's summary is readable (model output, rendered like an
 * answer); OpenAI's is encrypted, and the view says so.
 */
export default function CompactionView({ block }: { block: CompactionBlock }) {
  const name = PROVIDER_NAME[block.provider];
  const size = block.compactedTokens ? ` (${block.compactedTokens.toLocaleString('en-US')} tokens)` : '';
  if (block.summary === null) {
    const why =
      block.provider === 'openai'
        ? `${name} compacted the conversation before this answer${size}. Its summary is encrypted: only ${name} can read it, and requests send it in place of the earlier messages.`
        : `${name} tried to compact the conversation before this answer and wrote no summary; requests go on without one.`;
    return (
      <section aria-label={`Summary by ${name}`} className="summary-message compaction">
        <p>
          <strong>[Summary by {name}]</strong> <span className="muted">{why}</span>
        </p>
      </section>
    );
  }
  const body = summaryBody(block.summary);
  return (
    <section aria-label={`Summary by ${name}`} className="summary-message compaction">
      <details>
        <summary>
          <strong>[Summary by {name}]</strong>{' '}
          <span className="muted">
            {name} compacted the conversation before this answer{size}; requests send this summary in place of the earlier messages
          </span>
        </summary>
        <Suspense fallback={<p className="plain">{body}</p>}>
          <LazyMarkdown text={body} />
        </Suspense>
      </details>
    </section>
  );
}
