/**
 * The models each endpoint listed for its key, cached per provider and base URL with the
 * time they were fetched, and kept in storage (a settings record of its own) so a reload
 * shows them without asking again. Settings lists them once a key and base URL look
 * complete (see looksListable), and on "List models" / "Refresh"; listing runs beside
 * everything else and never blocks a send; a failure is kept as a sentence next to the
 * list, with the models of the last success.
 */
import type { ListedModel, ModelInfo, ProviderId } from '../core';
import { isWindowpaneError, listedModelInfos, readListedModels } from '../core';
import type { Runtime } from './runtime';
import type { ListTarget, ModelListState } from './state';
import { DEFAULT_BASE_URLS, type Settings } from './settings';

/** Settings key of the stored lists. Must not change without a migration. */
export const MODEL_LISTS_KEY = 'modelLists';

/** The base URL a provider's requests go to: the one typed, else its default; without a trailing slash. */
export function effectiveBaseUrl(provider: ProviderId, typed: string | undefined): string {
  return ((typed ?? '').trim() || DEFAULT_BASE_URLS[provider]).replace(/\/+$/, '');
}

/** Shortest key worth sending: shorter, it is still being typed (real keys are far longer). */
const MIN_KEY_LENGTH = 20;
/** How the keys of a provider's own endpoint begin. */
const KEY_PREFIXES: Partial<Record<ProviderId, string>> = { anthropic: 'sk-ant-', openai: 'sk-' };

/**
 * Whether `target` looks complete enough to list its models unasked: a base URL that parses
 * as http(s) (for an OpenAI-compatible server, one typed: the default is only a guess), and
 * a key of a plausible length, with the provider's prefix when it goes to the provider's own
 * endpoint (a proxy may use keys of its own). An OpenAI-compatible server needs no key.
 */
export function looksListable(target: ListTarget): boolean {
  const { provider } = target;
  const typed = (target.baseUrl ?? '').trim();
  if (provider === 'demo' || (provider === 'openai-compatible' && typed === '')) return false;
  let url: URL;
  try {
    url = new URL(effectiveBaseUrl(provider, typed));
  } catch {
    return false;
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hostname === '') return false;
  const prefix = KEY_PREFIXES[provider];
  if (prefix === undefined) return true;
  const key = target.apiKey.trim();
  const ownEndpoint = effectiveBaseUrl(provider, typed) === effectiveBaseUrl(provider, undefined);
  return key.length >= MIN_KEY_LENGTH && (!ownEndpoint || key.startsWith(prefix));
}

/** The cache key of an endpoint's list. */
export function modelListKey(provider: ProviderId, baseUrl: string | undefined): string {
  return `${provider} ${effectiveBaseUrl(provider, baseUrl)}`;
}

/** The list cached for the provider and base URL `settings` send to, if any. */
export function modelListOf(lists: Readonly<Record<string, ModelListState>>, settings: Pick<Settings, 'provider' | 'baseUrls'>): ModelListState | undefined {
  const key = modelListKey(settings.provider, settings.baseUrls[settings.provider]);
  return Object.hasOwn(lists, key) ? lists[key] : undefined;
}

/** The listed models whose endpoint stated a window, as model facts for planning (see listedModelInfos). */
export function listedInfosFor(lists: Readonly<Record<string, ModelListState>>, settings: Pick<Settings, 'provider' | 'baseUrls'>): ModelInfo[] {
  const list = modelListOf(lists, settings);
  if (!list || list.models.length === 0) return [];
  const asOf = list.fetchedAt !== undefined ? new Date(list.fetchedAt).toISOString().slice(0, 10) : '';
  return listedModelInfos(list.models, settings.provider, asOf);
}

/** Listings in flight by key, so an older answer never overwrites a newer one. */
const inFlight = new WeakMap<Runtime, Map<string, number>>();

/**
 * Lists the models `target`'s key can use and caches them; never throws. A listing of the
 * same endpoint started later wins over this one. Aborted through `signal` (the key or
 * address was typed on), it leaves the endpoint's list as it was before.
 */
export async function refreshModels(rt: Runtime, target: ListTarget, signal?: AbortSignal): Promise<void> {
  const key = modelListKey(target.provider, target.baseUrl);
  const runs = inFlight.get(rt) ?? new Map<string, number>();
  inFlight.set(rt, runs);
  const run = (runs.get(key) ?? 0) + 1;
  runs.set(key, run);
  const update = (patch: Partial<ModelListState>) =>
    rt.store.setState((s) => {
      const previous = s.modelLists[key] ?? { status: 'loading', models: [] };
      return { modelLists: { ...s.modelLists, [key]: { ...previous, ...patch } } };
    });
  const lists = rt.store.getState().modelLists;
  // What the endpoint showed before this listing, should it be aborted; a listing this one replaces is not waited for.
  const shown = Object.hasOwn(lists, key) ? lists[key] : undefined;
  const before = shown?.status === 'loading' ? (shown.fetchedAt !== undefined ? { ...shown, status: 'ready' as const } : undefined) : shown;
  update({ status: 'loading', error: undefined });
  if (!rt.deps.listModels) {
    update({ status: 'failed', error: 'Listing models is not available here.' });
    return;
  }
  try {
    const listing = await rt.deps.listModels({ ...target, baseUrl: effectiveBaseUrl(target.provider, target.baseUrl) }, signal);
    if (runs.get(key) !== run) return;
    update({ status: 'ready', models: listing.models, truncated: listing.truncated, fetchedAt: rt.deps.now(), error: undefined });
  } catch (error) {
    if (runs.get(key) !== run) return;
    if (signal?.aborted) {
      rt.store.setState((s) => {
        const { [key]: _stopped, ...others } = s.modelLists;
        return { modelLists: before ? { ...others, [key]: before } : others };
      });
      return;
    }
    const message = isWindowpaneError(error)
      ? error.message
      : `Windowpane could not list the models: ${error instanceof Error ? error.message : String(error)}`;
    update({ status: 'failed', error: message });
    return;
  }
  await saveModelLists(rt);
}

/** Writes every successful list to storage; a failed write is told, and the lists stay on screen. */
async function saveModelLists(rt: Runtime): Promise<void> {
  const stored: Record<string, { models: ListedModel[]; fetchedAt: number; truncated: boolean }> = {};
  for (const [key, list] of Object.entries(rt.store.getState().modelLists)) {
    if (list.fetchedAt !== undefined) stored[key] = { models: list.models, fetchedAt: list.fetchedAt, truncated: list.truncated === true };
  }
  try {
    await rt.repositories.settings.setSetting(MODEL_LISTS_KEY, stored);
  } catch (error) {
    rt.notifier.reportError(error, 'keep the list of models');
  }
}

/** The stored lists, each checked as the answer it was: a record that is not a list is left out. */
export function readModelLists(raw: unknown): Record<string, ModelListState> {
  const lists: Record<string, ModelListState> = {};
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return lists;
  for (const [key, value] of Object.entries(raw)) {
    if (typeof value !== 'object' || value === null || key.length > 2100) continue;
    const record = value as Record<string, unknown>;
    const models = readListedModels(record.models);
    const fetchedAt = record.fetchedAt;
    if (!models || typeof fetchedAt !== 'number' || !Number.isFinite(fetchedAt) || fetchedAt < 0) continue;
    lists[key] = { status: 'ready', models, fetchedAt, truncated: record.truncated === true };
  }
  return lists;
}

/** Reads the stored lists into the state (at startup, and when another tab listed); a failure only loses the cache. */
export async function loadModelLists(rt: Runtime): Promise<void> {
  try {
    const stored = readModelLists(await rt.repositories.settings.getSetting(MODEL_LISTS_KEY));
    // A listing running here now is newer than what is stored.
    rt.store.setState((s) => {
      const running = Object.fromEntries(Object.entries(s.modelLists).filter(([, list]) => list.status === 'loading'));
      return { modelLists: { ...stored, ...running } };
    });
  } catch {
    // The lists are a cache: without them Settings offers "List models" again.
  }
}
