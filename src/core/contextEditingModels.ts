/**
 * The models that have Anthropic's context editing, as its page lists them (read 2026-11-29).
 * Kept apart from `contextEditing.ts`, which only a turn needs: the transcript on the first
 * screen says which cleared results the provider clears.
 */
import type { ProviderId } from './conversation';

/** The models the context-editing page lists (its `supportedModels`), by their ids in the model registry and the API. */
const CONTEXT_EDITING_MODELS: ReadonlySet<string> = new Set([
  'claude-fable-5-2',
  'claude-mythos-5-2',
  'claude-fable-5-1',
  'claude-mythos-5-1',
  'claude-fable-5',
  'claude-mythos-5',
  'claude-mythos-preview',
  'claude-opus-5-5',
  'claude-opus-5',
  'claude-sonnet-5-5',
  'claude-sonnet-5',
  'claude-haiku-5-5',
  'claude-haiku-4-5',
  'claude-haiku-4-5-20251001',
  'claude-opus-4-8',
  'claude-opus-4-7',
  'claude-opus-4-6',
  'claude-sonnet-4-6',
  'claude-opus-4-5-20251101',
  'claude-sonnet-4-5-20250929',
]);

/**
 * Whether the provider clears tool results and thinking on its side for this model: Anthropic
 * only, as its models endpoint `stated` for the key (`ModelInfo.providerContextEditing`), else
 * the models the page lists.
 */
export function supportsContextEditing(provider: ProviderId, modelId: string, stated?: boolean): boolean {
  return provider === 'anthropic' && (stated ?? CONTEXT_EDITING_MODELS.has(modelId));
}
