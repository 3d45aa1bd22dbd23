/**
 * The providers' public surface for the store. `createProvider` loads the adapter — and
 * with it the SDK — on first use (dynamic `import()`), so neither SDK is in the initial
 * bundle.
 */
import { ConfigError, endpointOrigin, keyTravelsSafely } from '../core';
import type { ChatProvider, ProviderOptions, ProviderSettings } from './types';
import type { DemoOptions } from './demo';

export type {
  ChatProvider,
  ChatRequest,
  ChatResult,
  ProviderOptions,
  ProviderSettings,
  RetryInfo,
  StreamCallbacks,
} from './types';
export type { DemoOptions } from './demo';

/**
 * Creates the adapter for `settings.provider`. Throws a WindowpaneError before any
 * network use when the settings cannot work: `auth` (no key for Anthropic or OpenAI),
 * `invalid_config` (no base URL for an OpenAI-compatible endpoint, or a key that would go
 * unencrypted to another machine without the user's confirmation). `demo` ignores the
 * key and base URL; `options.demo` sets its streaming delays.
 */
export async function createProvider(
  settings: ProviderSettings,
  options: ProviderOptions & { demo?: DemoOptions } = {},
): Promise<ChatProvider> {
  if (settings.provider !== 'demo' && settings.apiKey && settings.baseUrl && !keyTravelsSafely(settings.baseUrl)) {
    const origin = endpointOrigin(settings.baseUrl);
    if (!origin || origin !== settings.keyConfirmedFor) {
      throw new ConfigError(
        'baseUrl',
        `Your API key was not sent to ${origin ?? settings.baseUrl}: over plain http it would travel unencrypted. ` +
          'Use an https address, or confirm in Settings that the key may go there.',
      );
    }
  }
  switch (settings.provider) {
    case 'anthropic':
      return (await import('./anthropic')).createAnthropicProvider(settings, options);
    case 'openai':
    case 'openai-compatible':
      return (await import('./openai')).createOpenAIProvider(settings, options);
    case 'demo':
      return (await import('./demo')).createDemoProvider({ ...options.demo, maxRetries: options.maxRetries });
  }
}
