/**
 * The models an endpoint says a key can use, read from its models endpoint, and merged
 * with what the registry knows. Everything here reads bodies another server wrote, so
 * every field is checked: a field of the wrong type or out of range is ignored, an entry
 * without a usable id is skipped, and a body that is not a list at all is a failure with
 * a plain reason, never an exception.
 *
 * Shapes relied on, as the providers document them:
 * - Anthropic `GET /v1/models` ("List Models", Claude Platform Docs): `{ data: [{ type: 'model',
 *   id, display_name, created_at, max_input_tokens, max_tokens, … }], has_more, first_id,
 *   last_id }`, paged with `limit` (1–1000, default 20) and `after_id`. `max_input_tokens`
 *   ("maximum input context window size") and `max_tokens` (the largest `max_tokens` a request
 *   may ask for) may be null or absent (older API versions, proxies).
 * - OpenAI `GET /v1/models` ("List models"): `{ object: 'list', data: [{ id, object: 'model',
 *   created, owned_by }] }`: ids only, one page.
 * - OpenRouter `GET /api/v1/models` (its "Models API standard"), which is `{base}/models` for its
 *   OpenAI-compatible base URL: `{ data: [{ id, name, context_length, top_provider: {
 *   context_length, max_completion_tokens }, … }] }`.
 * - Ollama `GET /api/tags`: `{ models: [{ name, model, details, … }] }`, and `POST /api/show`
 *   `{ model }`: `{ parameters, model_info: { 'general.architecture': arch,
 *   '<arch>.context_length': n, … }, … }` (docs/api.md of ollama/ollama).
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
}

/** One page of a parsed list, or why the body is not a list. */
export type ParsedModelPage = { ok: true; models: ListedModel[]; skipped: number; hasMore: boolean; lastId?: string } | { ok: false; problem: string };

/** More models than any real endpoint lists (OpenRouter lists a few hundred): the rest are left out, and the list says so. */
export const MAX_LISTED_MODELS = 2000;
/** Model ids are kept in settings, which take at most 200 characters. */
const MAX_ID_LENGTH = 200;
const MAX_LABEL_LENGTH = 200;
/** A window above this is not a window (the settings refuse it too). */
const MAX_TOKENS = 100_000_000;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A whole number of tokens in range, else undefined. */
function tokens(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isInteger(value) && value > 0 && value <= MAX_TOKENS ? value : undefined;
}

/** A model id as settings can keep it: a non-blank string without control characters. */
function modelId(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const id = value.trim();
  // eslint-disable-next-line no-control-regex
  return id && id.length <= MAX_ID_LENGTH && !/[\u0000-\u001f\u007f]/.test(id) ? id : undefined;
}

function label(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  // eslint-disable-next-line no-control-regex
  const text = value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return text ? text.slice(0, MAX_LABEL_LENGTH) : undefined;
}

/** Reads `entries` with `read`, skipping what it refuses and duplicates, up to MAX_LISTED_MODELS. */
function readEntries(
  entries: readonly unknown[],
  read: (entry: Record<string, unknown>) => ListedModel | undefined,
): { models: ListedModel[]; skipped: number } {
  const models: ListedModel[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  for (const entry of entries) {
    if (models.length >= MAX_LISTED_MODELS) break;
    const model = isRecord(entry) ? read(entry) : undefined;
    if (!model || seen.has(model.id)) {
      skipped++;
      continue;
    }
    seen.add(model.id);
    models.push(model);
  }
  return { models, skipped };
}

function withoutUndefined(model: ListedModel): ListedModel {
  const out: ListedModel = { id: model.id };
  if (model.label !== undefined) out.label = model.label;
  if (model.contextWindow !== undefined) out.contextWindow = model.contextWindow;
  if (model.maxOutputTokens !== undefined) out.maxOutputTokens = model.maxOutputTokens;
  return out;
}

/** One page of Anthropic's `GET /v1/models`. `max_input_tokens` is read as the model's window. */
export function parseAnthropicModelPage(body: unknown): ParsedModelPage {
  if (!isRecord(body) || !Array.isArray(body.data)) return { ok: false, problem: 'the answer has no "data" list of models' };
  const { models, skipped } = readEntries(body.data, (entry) => {
    const id = modelId(entry.id);
    if (!id) return undefined;
    return withoutUndefined({ id, label: label(entry.display_name), contextWindow: tokens(entry.max_input_tokens), maxOutputTokens: tokens(entry.max_tokens) });
  });
  const lastId = modelId(body.last_id);
  return { ok: true, models, skipped, hasMore: body.has_more === true && lastId !== undefined, ...(lastId ? { lastId } : {}) };
}

/**
 * OpenAI's `GET /v1/models`, and what OpenAI-compatible servers answer at `{base}/models`:
 * ids, plus OpenRouter's `name`, `context_length` and `top_provider` when present.
 */
export function parseOpenAIModelList(body: unknown): ParsedModelPage {
  if (!isRecord(body) || !Array.isArray(body.data)) return { ok: false, problem: 'the answer has no "data" list of models' };
  const { models, skipped } = readEntries(body.data, (entry) => {
    const id = modelId(entry.id);
    if (!id) return undefined;
    const top = isRecord(entry.top_provider) ? entry.top_provider : {};
    return withoutUndefined({
      id,
      label: label(entry.name),
      contextWindow: tokens(entry.context_length) ?? tokens(top.context_length),
      maxOutputTokens: tokens(top.max_completion_tokens),
    });
  });
  return { ok: true, models, skipped, hasMore: false };
}

/** The model names of Ollama's `GET /api/tags`, or undefined when the body is not that (the server is not Ollama). */
export function parseOllamaTags(body: unknown): string[] | undefined {
  if (!isRecord(body) || !Array.isArray(body.models)) return undefined;
  const { models } = readEntries(body.models, (entry) => {
    const id = modelId(entry.model) ?? modelId(entry.name);
    return id ? { id } : undefined;
  });
  return models.map((m) => m.id);
}

/**
 * The window of one model from Ollama's `POST /api/show`: `num_ctx` when the model's
 * parameters set it (the window Ollama runs it with), else `<arch>.context_length` of its
 * `model_info` (the window it was trained for). Undefined when neither is usable. The
 * server's own default (`OLLAMA_CONTEXT_LENGTH`) can be smaller and is not reported.
 */
export function parseOllamaShow(body: unknown): number | undefined {
  if (!isRecord(body)) return undefined;
  if (typeof body.parameters === 'string') {
    const numCtx = /^\s*num_ctx\s+(\d+)\s*$/m.exec(body.parameters);
    const value = numCtx ? tokens(Number(numCtx[1])) : undefined;
    if (value !== undefined) return value;
  }
  const info = body.model_info;
  if (!isRecord(info)) return undefined;
  const arch = info['general.architecture'];
  if (typeof arch !== 'string' || !arch || arch.length > 100) return undefined;
  return tokens(info[`${arch}.context_length`]);
}

/** Models as the app stored them after an earlier listing (storage is read like any other answer); undefined when it is not a list. */
export function readListedModels(raw: unknown): ListedModel[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  return readEntries(raw, (entry) => {
    const id = modelId(entry.id);
    return id
      ? withoutUndefined({ id, label: label(entry.label), contextWindow: tokens(entry.contextWindow), maxOutputTokens: tokens(entry.maxOutputTokens) })
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
  const own = (id: string) => (Object.hasOwn(windows, id) ? tokens(windows[id]) : undefined);
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
