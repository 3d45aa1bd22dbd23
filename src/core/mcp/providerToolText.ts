/**
 * A call the provider's MCP connector ran, as later requests send it back. Apart from
 * `connector.ts`, which only Settings and a turn need: every plan (the first screen's gauge
 * too) builds the request's messages with it.
 */
import type { ProviderToolBlock } from '../conversation';

/**
 * A call the provider ran, as later requests send it back: text in the answer it belongs to.
 * Text is valid on every provider whatever servers a later request names, so a conversation
 * goes on when the server is switched off, set to this browser, or the provider changes.
 */
export function providerToolText(block: ProviderToolBlock): string {
  const who = block.provider === 'anthropic' ? 'Anthropic' : 'OpenAI';
  const outcome = block.isError ? 'failed' : 'returned';
  return `[${who} called the tool "${block.name}" of the MCP server "${block.server}" with ${JSON.stringify(block.input ?? {})}; it ${outcome}:]\n${block.output}`;
}
