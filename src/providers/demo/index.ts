/**
 * The Demo provider: no key, no network. It is the real Anthropic adapter and SDK, given
 * a `fetch` that answers like the Messages API ({@link createDemoFetch}). Its context window
 * is tiny, so a newcomer sees trimming and a summary within a few messages, and a request
 * over the window gets the real "prompt is too long" error, so overflow recovery runs
 * exactly as with a real model. Offered the run_javascript tool and asked to compute an
 * arithmetic expression ("compute 12 * 34"), it calls the tool, so the tool loop can be
 * seen without a key.
 */
import { DEMO_MODEL_ID } from '../../core';
import { createAnthropicProvider } from '../anthropic';
import type { ChatProvider } from '../types';
import { createDemoFetch } from './messagesApi';
import type { DemoOptions } from './messagesApi';

export { createDemoFetch } from './messagesApi';
export type { DemoOptions } from './messagesApi';
export { DEMO_CONTEXT_WINDOW, DEMO_MAX_OUTPUT_TOKENS } from './model';

/** Never resolved: the demo `fetch` answers every request itself. */
export const DEMO_BASE_URL = 'https://demo.windowpane.invalid';

/** The Demo provider: the Anthropic adapter over {@link createDemoFetch}, under id `demo`. */
export function createDemoProvider(options: DemoOptions & { maxRetries?: number } = {}): Promise<ChatProvider> {
  return createAnthropicProvider(
    { provider: 'demo', apiKey: 'demo-key', baseUrl: DEMO_BASE_URL, model: DEMO_MODEL_ID },
    { id: 'demo', fetch: createDemoFetch(options), maxRetries: options.maxRetries },
  );
}
