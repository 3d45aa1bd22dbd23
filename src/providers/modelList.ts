/**
 * Lists the models a key can use, from the provider's models endpoint: Anthropic through
 * its SDK's `models.list` (every page), OpenAI and OpenAI-compatible servers through the
 * OpenAI SDK's `models.list` (`GET {base}/models`, which is OpenRouter's models API too).
 * For an Ollama server, whose OpenAI-compatible list has ids only, each model's window is
 * read from Ollama's own `POST /api/show`. The SDKs send the request (auth headers,
 * versions, retries); the body is read here and checked field by field (see core's
 * modelListPages). Every failure is a WindowpaneError with a sentence for the user.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import { MAX_LISTED_MODELS, WindowpaneError, endpointOrigin, parseAnthropicModelPage, parseOllamaShow, parseOllamaTags, parseOpenAIModelList } from '../core';
import type { ListedModel, ParsedModelPage, ProviderId } from '../core';
import { ANTHROPIC_DEFAULT_BASE_URL, normalizeAnthropicBaseUrl } from './anthropic';
import { redactSecrets } from './errors';
import { NO_KEY_PLACEHOLDER, OPENAI_DEFAULT_BASE_URL } from './openai';
import type { ProviderSettings } from './types';

/** What a models endpoint listed. */
export interface ModelListing {
  models: ListedModel[];
  /** More were listed than are kept (see MAX_LISTED_MODELS), or the pages did not end. */
  truncated: boolean;
}

export interface ListModelsOptions {
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

/** A list that does not answer in this time is reported as unreachable, not waited for. */
const LIST_TIMEOUT_MS = 20_000;
/** Anthropic pages hold up to 1,000 models; more pages than this is a server that never says it is done. */
const MAX_PAGES = 5;
/** A models list of more characters than this is not one (OpenRouter's, with descriptions, is a few MB). */
const MAX_BODY_CHARS = 20_000_000;
/** Ollama's details are read for at most this many models, a few at a time. */
const MAX_OLLAMA_SHOWS = 100;
const OLLAMA_PARALLEL = 4;

interface Where {
  provider: ProviderId;
  baseUrl: string;
  apiKey: string;
}

function nameOf(where: Where): string {
  if (where.provider === 'anthropic') return 'Anthropic';
  if (where.provider === 'openai') return 'OpenAI';
  return `the server at ${endpointOrigin(where.baseUrl) ?? where.baseUrl}`;
}

const capitalize = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** Any failure of a listing, as a WindowpaneError that says what to check. */
function listingError(error: unknown, where: Where, signal?: AbortSignal): WindowpaneError {
  if (error instanceof WindowpaneError) return error;
  const make = (code: 'auth' | 'rate_limit' | 'network' | 'provider' | 'aborted', message: string, status?: number) =>
    new WindowpaneError(code, redactSecrets(message, where.apiKey), { provider: where.provider, ...(status !== undefined ? { status } : {}) });
  if (signal?.aborted || (error instanceof Error && (error.name === 'AbortError' || error.name === 'APIUserAbortError'))) return make('aborted', 'Stopped.');
  const record = error !== null && typeof error === 'object' ? (error as Record<string, unknown>) : {};
  const status = typeof record.status === 'number' ? record.status : undefined;
  const name = nameOf(where);
  const custom = where.provider === 'openai-compatible' || !/^https:\/\/api\.(anthropic|openai)\.com(\/|$)/.test(where.baseUrl);
  if (status === undefined) {
    const origin = endpointOrigin(where.baseUrl) ?? where.baseUrl;
    const hint = custom
      ? ' Check the base URL, that the server is running, and that it allows requests from this page (CORS; for Ollama, set OLLAMA_ORIGINS).'
      : ' The connection failed, so this device may be offline. Check your internet connection.';
    return make('network', `Could not reach ${origin} to list its models.${hint}`);
  }
  if (status === 401 || status === 403) return make('auth', `The key was refused (${status}) by ${name}. Check that it is complete and still active.`, status);
  if (status === 404) {
    const tail = where.provider === 'anthropic' ? '' : ' (OpenAI-compatible servers usually end in /v1)';
    return make('provider', `${capitalize(name)} has no list of models at ${where.baseUrl} (404). Check the base URL${tail}.`, status);
  }
  if (status === 429) return make('rate_limit', `${capitalize(name)} is rate limiting this key (429). Try Refresh in a moment.`, status);
  return make('provider', `${capitalize(name)} could not list its models (HTTP ${status}). Try Refresh in a moment.`, status);
}

function notAList(where: Where, problem: string): WindowpaneError {
  return new WindowpaneError('provider', `${capitalize(nameOf(where))} answered, but not with a list of models: ${problem}.`, { provider: where.provider });
}

/** The body of a successful answer as JSON, or a failure that says it is not a list. */
async function readJson(response: Response, where: Where): Promise<unknown> {
  const text = await response.text();
  if (text.length > MAX_BODY_CHARS) throw notAList(where, `the answer is over ${MAX_BODY_CHARS.toLocaleString('en-US')} characters long`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw notAList(where, 'the answer is not JSON');
  }
}

function parsedOrThrow(page: ParsedModelPage, where: Where): Extract<ParsedModelPage, { ok: true }> {
  if (!page.ok) throw notAList(where, page.problem);
  return page;
}

function defaultFetch(): typeof fetch {
  return (input, init) => fetch(input, init);
}

async function listAnthropic(settings: ProviderSettings, fetchImpl: typeof fetch, signal?: AbortSignal): Promise<ModelListing> {
  const where: Where = {
    provider: 'anthropic',
    baseUrl: normalizeAnthropicBaseUrl(settings.baseUrl) || ANTHROPIC_DEFAULT_BASE_URL,
    apiKey: settings.apiKey.trim(),
  };
  if (!where.apiKey) throw new WindowpaneError('auth', 'Enter your Anthropic API key to list the models it can use.');
  const { default: AnthropicClient } = await import('@anthropic-ai/sdk');
  const client: Anthropic = new AnthropicClient({
    apiKey: where.apiKey,
    baseURL: where.baseUrl,
    dangerouslyAllowBrowser: true,
    maxRetries: 1,
    timeout: LIST_TIMEOUT_MS,
    fetch: fetchImpl,
    openTelemetry: false,
  });
  const models: ListedModel[] = [];
  const seen = new Set<string>();
  let after: string | undefined;
  try {
    for (let page = 0; page < MAX_PAGES; page++) {
      const response = await client.models.list({ limit: 1000, ...(after ? { after_id: after } : {}) }, { signal }).asResponse();
      const parsed = parsedOrThrow(parseAnthropicModelPage(await readJson(response, where)), where);
      for (const model of parsed.models) {
        if (seen.has(model.id) || models.length >= MAX_LISTED_MODELS) continue;
        seen.add(model.id);
        models.push(model);
      }
      // A cursor that does not move would page forever.
      if (!parsed.hasMore || parsed.lastId === after) return { models, truncated: models.length >= MAX_LISTED_MODELS };
      after = parsed.lastId;
    }
  } catch (error) {
    throw listingError(error, where, signal);
  }
  return { models, truncated: true };
}

async function listOpenAI(settings: ProviderSettings, fetchImpl: typeof fetch, signal?: AbortSignal): Promise<ModelListing> {
  const compatible = settings.provider === 'openai-compatible';
  const typedKey = settings.apiKey.trim();
  const baseUrl = (settings.baseUrl ?? '').trim().replace(/\/+$/, '') || (compatible ? '' : OPENAI_DEFAULT_BASE_URL);
  const where: Where = { provider: compatible ? 'openai-compatible' : 'openai', baseUrl, apiKey: typedKey };
  if (!compatible && !typedKey) throw new WindowpaneError('auth', 'Enter your OpenAI API key to list the models it can use.');
  if (!baseUrl) throw new WindowpaneError('invalid_config', 'Enter the base URL of your OpenAI-compatible endpoint to list its models.');
  const { default: OpenAIClient } = await import('openai');
  const client: OpenAI = new OpenAIClient({
    apiKey: typedKey || NO_KEY_PLACEHOLDER,
    adminAPIKey: null,
    organization: null,
    project: null,
    baseURL: baseUrl,
    dangerouslyAllowBrowser: true,
    maxRetries: 1,
    timeout: LIST_TIMEOUT_MS,
    fetch: fetchImpl,
  });
  let listing: ModelListing;
  try {
    const response = await client.models.list({ signal }).asResponse();
    const parsed = parsedOrThrow(parseOpenAIModelList(await readJson(response, where)), where);
    listing = { models: parsed.models, truncated: parsed.models.length >= MAX_LISTED_MODELS };
  } catch (error) {
    throw listingError(error, where, signal);
  }
  if (compatible && listing.models.every((m) => m.contextWindow === undefined)) {
    return { ...listing, models: await withOllamaWindows(listing.models, baseUrl, typedKey, fetchImpl, signal) };
  }
  return listing;
}

/** Fetches `url` as JSON, or undefined for any failure: Ollama's details are a bonus, never a reason the list fails. */
async function jsonOrUndefined(fetchImpl: typeof fetch, url: string, init: RequestInit, signal?: AbortSignal): Promise<unknown> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), LIST_TIMEOUT_MS);
  const stop = () => controller.abort();
  signal?.addEventListener('abort', stop);
  try {
    const response = await fetchImpl(url, { ...init, signal: controller.signal });
    if (!response.ok) return undefined;
    const text = await response.text();
    return text.length > MAX_BODY_CHARS ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', stop);
  }
}

/**
 * An Ollama server (its OpenAI-compatible API is under `/v1`, its own under `/api`) says
 * each model's window in `POST /api/show`. Another server does not answer `/api/tags`
 * with a list of models, and its list is returned as it was.
 */
async function withOllamaWindows(
  models: ListedModel[],
  baseUrl: string,
  typedKey: string,
  fetchImpl: typeof fetch,
  signal?: AbortSignal,
): Promise<ListedModel[]> {
  if (!/\/v1$/.test(baseUrl) || models.length === 0) return models;
  const root = baseUrl.replace(/\/v1$/, '');
  const auth: Record<string, string> = typedKey ? { authorization: `Bearer ${typedKey}` } : {};
  const names = parseOllamaTags(await jsonOrUndefined(fetchImpl, `${root}/api/tags`, { headers: auth }, signal));
  if (!names) return models;
  const installed = new Set(names);
  const wanted = models.filter((m) => installed.has(m.id)).slice(0, MAX_OLLAMA_SHOWS);
  const windows = new Map<string, number>();
  for (let i = 0; i < wanted.length; i += OLLAMA_PARALLEL) {
    await Promise.all(
      wanted.slice(i, i + OLLAMA_PARALLEL).map(async (model) => {
        const body = await jsonOrUndefined(
          fetchImpl,
          `${root}/api/show`,
          { method: 'POST', headers: { 'content-type': 'application/json', ...auth }, body: JSON.stringify({ model: model.id }) },
          signal,
        );
        const window = parseOllamaShow(body);
        if (window !== undefined) windows.set(model.id, window);
      }),
    );
    if (signal?.aborted) break;
  }
  return models.map((m) => (windows.has(m.id) ? { ...m, contextWindow: windows.get(m.id) } : m));
}

/** Lists the models `settings`' key can use; rejects only with a WindowpaneError. */
export async function listModelsWith(settings: ProviderSettings, options: ListModelsOptions = {}): Promise<ModelListing> {
  const fetchImpl = options.fetch ?? defaultFetch();
  if (settings.provider === 'anthropic') return listAnthropic(settings, fetchImpl, options.signal);
  if (settings.provider === 'openai' || settings.provider === 'openai-compatible') return listOpenAI(settings, fetchImpl, options.signal);
  return { models: [], truncated: false };
}
