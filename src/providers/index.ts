/**
 * The providers' public surface for the store. `createProvider` loads the adapter — and
 * with it the SDK — on first use (dynamic `import()`), so neither SDK is in the initial
 * bundle.
 */
import { ConfigError, endpointOrigin, keyTravelsSafely } from '../core';
import type { ChatProvider, ProviderOptions, ProviderSettings } from './types';
import type { DemoOptions } from './demo';
import type { ListModelsOptions, ModelListing } from './modelList';

export type { ChatProvider, ChatRequest, ChatResult, ProviderOptions, ProviderSettings, RetryInfo, StreamCallbacks } from './types';
export type { DemoOptions } from './demo';
export type { ListModelsOptions, ModelListing } from './modelList';

/**
 * Creates the adapter for `settings.provider`. Throws a WindowpaneError before any
 * network use when the settings cannot work: `auth` (no key for Anthropic or OpenAI),
 * `invalid_config` (no base URL for an OpenAI-compatible endpoint, or a key that would go
 * unencrypted to another machine without the user's confirmation). `demo` ignores the
 * key and base URL; `options.demo` sets its streaming delays.
 */
export async function createProvider(settings: ProviderSettings, options: ProviderOptions & { demo?: DemoOptions } = {}): Promise<ChatProvider> {
  checkKeyDestination(settings);
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

/** Throws `invalid_config` when the key would go unencrypted to another machine without the user's confirmation. */
function checkKeyDestination(settings: Omit<ProviderSettings, 'model'>): void {
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
}

/**
 * Lists the models the key in `settings` can use, from the provider's models endpoint
 * (see modelList.ts), loading the SDK on first use. Rejects only with a WindowpaneError:
 * `invalid_config` for a key that may not travel to the base URL (as createProvider),
 * `auth`, `network`, `rate_limit`, `provider` (including a body that is not a list), `aborted`.
 */
export async function listModels(settings: Omit<ProviderSettings, 'model'>, options: ListModelsOptions = {}): Promise<ModelListing> {
  checkKeyDestination(settings);
  return (await import('./modelList')).listModelsWith({ ...settings, model: '' }, options);
}
