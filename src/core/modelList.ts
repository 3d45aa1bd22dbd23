/**
 * The models an endpoint says a key can use, as the app keeps them and merged with what the
 * registry knows. Stored lists are read like any other answer: a field of the wrong type or
 * out of range is ignored, an entry without a usable id is skipped. The readers of each
 * endpoint's answer, which only listing models needs, are `modelListPages.ts`; the checks of
 * one entry's fields here are shared with them.
 */
import { DEFAULT_CONTEXT_WINDOW, findModelInfo, type ModelInfo } from './models';
import type { ProviderId } from './conversation';

/** What a models endpoint says about one model; absent numbers were not stated (or not usable). */
export interface ListedModel {
  id: string;
  /** Display name, when the endpoint gives one. */
  label?: string;
  /** Tokens one request may hold, as the endpoint states it. */
  contextWindow?: number;
  /** Most output tokens one answer may have, as the endpoint states it. */
  maxOutputTokens?: number;
  /** Whether the provider compacts on its side for this model, as the endpoint states it (Anthropic's `capabilities`). */
  compaction?: boolean;
  /** Whether the provider clears old tool results on its side for this model, as the endpoint states it (Anthropic's `capabilities`). */
  contextEditing?: boolean;
}

/** More models than any real endpoint lists (OpenRouter lists a few hundred): the rest are left out, and the list says so. */
export const MAX_LISTED_MODELS = 2000;
/** Model ids are kept in settings, which take at most 200 characters. */
const MAX_ID_LENGTH = 200;
const MAX_LABEL_LENGTH = 200;
/** A window above this is not a window (the settings refuse it too). */
const MAX_TOKENS = 100_000_000;

/** A JSON object (not null, not a list). */
export const isListedRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A whole number of tokens in range, else undefined. */
export function listedTokens(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= MAX_TOKENS ? value : undefined;
}

/** A yes or no the endpoint stated, else undefined. */
export const listedFlag = (value: unknown): boolean | undefined => (typeof value === 'boolean' ? value : undefined);

/** A model id as settings can keep it: a non-blank string without control characters. */
export function listedModelId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const id = value.trim();
  // eslint-disable-next-line no-control-regex
  return id && id.length <= MAX_ID_LENGTH && !/[\u0000-\u001f\u007f]/.test(id) ? id : undefined;
}

/** A display name without control characters, cut to 200 characters; undefined when blank. */
export function listedLabel(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // eslint-disable-next-line no-control-regex
  const text = value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return text ? text.slice(0, MAX_LABEL_LENGTH) : undefined;
}

/** Reads `entries` with `read`, skipping what it refuses and duplicates, up to MAX_LISTED_MODELS. */
export function readListedEntries(
  entries: readonly unknown[],
  read: (entry: Record<string, unknown>) => ListedModel | undefined,
): { models: ListedModel[]; skipped: number } {
  const models: ListedModel[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  for (const entry of entries) {
    if (models.length >= MAX_LISTED_MODELS) break;
    const model = isListedRecord(entry) ? read(entry) : undefined;
    if (!model || seen.has(model.id)) {
      skipped++;
      continue;
    }
    seen.add(model.id);
    models.push(model);
  }
  return { models, skipped };
}

/** The model with only the fields that are set (no key holding undefined). */
export function definedFields(model: ListedModel): ListedModel {
  const out: ListedModel = { id: model.id };
  if (model.label !== undefined) out.label = model.label;
  if (model.contextWindow !== undefined) out.contextWindow = model.contextWindow;
  if (model.maxOutputTokens !== undefined) out.maxOutputTokens = model.maxOutputTokens;
  if (model.compaction !== undefined) out.compaction = model.compaction;
  if (model.contextEditing !== undefined) out.contextEditing = model.contextEditing;
  return out;
}

/** Models as the app stored them after an earlier listing (storage is read like any other answer); undefined when it is not a list. */
export function readListedModels(raw: unknown): ListedModel[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  return readListedEntries(raw, (entry) => {
    const id = listedModelId(entry.id);
    return id
      ? definedFields({
          id,
          label: listedLabel(entry.label),
          contextWindow: listedTokens(entry.contextWindow),
          maxOutputTokens: listedTokens(entry.maxOutputTokens),
          compaction: listedFlag(entry.compaction),
          contextEditing: listedFlag(entry.contextEditing),
        })
      : undefined;
  }).models;
}

/** Where the window shown for a model comes from. */
export type WindowSource = 'yours' | 'endpoint' | 'registry' | 'guess';

/** A model to choose from: what the registry knows, corrected by what the endpoint states. */
export interface ModelChoice {
  id: string;
  label: string;
  contextWindow: number;
  windowSource: WindowSource;
  /** Listed by the endpoint (false: from the registry only). */
  listed: boolean;
}

/**
 * The listed models as model facts the planner can use: only those whose endpoint stated a
 * window, each over its registry entry when there is one (so prices stay). Pass them to
 * `resolveModelInfo` as `custom`: the endpoint's window wins over the registry's.
 */
export function listedModelInfos(listed: readonly ListedModel[], provider: ProviderId, asOf: string): ModelInfo[] {
  const infos: ModelInfo[] = [];
  for (const model of listed) {
    if (model.contextWindow === undefined) continue;
    const known = findModelInfo(model.id)?.info;
    const window = model.contextWindow;
    // An output limit as large as the window would leave no room for input: cap it at a quarter, as an unknown model's reserve is.
    const output = model.maxOutputTokens ?? known?.maxOutputTokens ?? Math.max(1, Math.floor(window / 4));
    infos.push({
      ...(known ?? { provider, label: model.label ?? model.id }),
      id: model.id,
      aliases: undefined,
      contextWindow: window,
      maxOutputTokens: Math.min(output, window),
      maxInputTokens: undefined,
      providerCompaction: model.compaction,
      providerContextEditing: model.contextEditing,
      source: `${provider} models endpoint`,
      asOf,
    });
  }
  return infos;
}

/**
 * The models to offer for a provider: the registry's entries for it first (documented
 * windows), then the listed ones it does not know. A listed model's stated window wins
 * over the registry; a window the user gave (`windows`, by id) wins over both; a model
 * nobody knows the window of is marked a guess at DEFAULT_CONTEXT_WINDOW.
 */
export function modelChoices(registry: readonly ModelInfo[], listed: readonly ListedModel[], windows: Readonly<Record<string, number>> = {}): ModelChoice[] {
  const byId = new Map<string, ModelChoice>();
  const own = (id: string) => (Object.hasOwn(windows, id) ? listedTokens(windows[id]) : undefined);
  for (const info of registry) {
    const mine = own(info.id);
    byId.set(info.id, { id: info.id, label: info.label, contextWindow: mine ?? info.contextWindow, windowSource: mine ? 'yours' : 'registry', listed: false });
  }
  for (const model of listed) {
    const known = byId.get(model.id) ?? registryChoice(model.id);
    const mine = own(model.id);
    const window = mine ?? model.contextWindow ?? known?.contextWindow;
    byId.set(model.id, {
      id: model.id,
      label: known?.label ?? model.label ?? model.id,
      contextWindow: window ?? DEFAULT_CONTEXT_WINDOW,
      windowSource: mine ? 'yours' : model.contextWindow !== undefined ? 'endpoint' : known ? 'registry' : 'guess',
      listed: true,
    });
  }
  return [...byId.values()];
}

/** A listed id the registry knows under another spelling (a dated id, a namespaced one). */
function registryChoice(id: string): ModelChoice | undefined {
  const found = findModelInfo(id);
  return found ? { id, label: found.info.label, contextWindow: found.info.contextWindow, windowSource: 'registry', listed: true } : undefined;
}
