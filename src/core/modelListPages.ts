/**
 * The answers of each provider's models endpoint, read into listed models (`modelList.ts`)
 * when a key's models are listed, which the first screen never does. Everything here reads
 * bodies another server wrote, so every field is checked: a field of the wrong type or out
 * of range is ignored, an entry without a usable id is skipped, and a body that is not a
 * list at all is a failure with a plain reason, never an exception.
 *
 * Shapes relied on, as the providers document them:
 * - Anthropic `GET /v1/models` ("List Models", Claude Platform Docs): `{ data: [{ type: 'model',
 *   id, display_name, created_at, max_input_tokens, max_tokens, … }], has_more, first_id,
 *   last_id }`, paged with `limit` (1–1000, default 20) and `after_id`. `max_input_tokens`
 *   ("maximum input context window size") and `max_tokens` (the largest `max_tokens` a request
 *   may ask for) may be null or absent (older API versions, proxies). `capabilities.context_management`
 *   (`supported`, and `{ supported }` or null for each of `compact_20260112`,
 *   `clear_tool_uses_20250919`, `clear_thinking_20251015`; SDK 1.12 `ContextManagementCapability`)
 *   says whether the provider compacts and clears tool results for the model; absent, the
 *   documented lists decide.
 * - OpenAI `GET /v1/models` ("List models"): `{ object: 'list', data: [{ id, object: 'model',
 *   created, owned_by }] }`: ids only, one page.
 * - OpenRouter `GET /api/v1/models` (its "Models API standard"), which is `{base}/models` for its
 *   OpenAI-compatible base URL: `{ data: [{ id, name, context_length, top_provider: {
 *   context_length, max_completion_tokens }, … }] }`.
 * - Ollama `GET /api/tags`: `{ models: [{ name, model, details, … }] }`, and `POST /api/show`
 *   `{ model }`: `{ parameters, model_info: { 'general.architecture': arch,
 *   '<arch>.context_length': n, … }, … }` (docs/api.md of ollama/ollama).
 */
import { definedFields, isListedRecord, listedFlag, listedLabel, listedModelId, listedTokens, readListedEntries, type ListedModel } from './modelList';

/** One page of a parsed list, or why the body is not a list. */
export type ParsedModelPage = { ok: true; models: ListedModel[]; skipped: number; hasMore: boolean; lastId?: string } | { ok: false; problem: string };

/** One page of Anthropic's `GET /v1/models`. `max_input_tokens` is read as the model's window. */
export function parseAnthropicModelPage(body: unknown): ParsedModelPage {
  if (!isListedRecord(body) || !Array.isArray(body.data)) return { ok: false, problem: 'the answer has no "data" list of models' };
  const { models, skipped } = readListedEntries(body.data, (entry) => {
    const id = listedModelId(entry.id);
    if (!id) return undefined;
    return definedFields({
      id,
      label: listedLabel(entry.display_name),
      contextWindow: listedTokens(entry.max_input_tokens),
      maxOutputTokens: listedTokens(entry.max_tokens),
      ...contextManagement(entry.capabilities),
    });
  });
  const lastId = listedModelId(body.last_id);
  return { ok: true, models, skipped, hasMore: body.has_more === true && lastId !== undefined, ...(lastId ? { lastId } : {}) };
}

/** What Anthropic's `capabilities` say of compaction and tool-result clearing; a strategy not stated stays undefined. */
function contextManagement(capabilities: unknown): Pick<ListedModel, 'compaction' | 'contextEditing'> {
  const managed = isListedRecord(capabilities) ? capabilities.context_management : undefined;
  if (!isListedRecord(managed)) return {};
  const strategy = (name: string) => {
    if (managed.supported === false) return false;
    const support = managed[name];
    return isListedRecord(support) ? listedFlag(support.supported) : support === null ? false : undefined;
  };
  return { compaction: strategy('compact_20260112'), contextEditing: strategy('clear_tool_uses_20250919') };
}

/**
 * OpenAI's `GET /v1/models`, and what OpenAI-compatible servers answer at `{base}/models`:
 * ids, plus OpenRouter's `name`, `context_length` and `top_provider` when present.
 */
export function parseOpenAIModelList(body: unknown): ParsedModelPage {
  if (!isListedRecord(body) || !Array.isArray(body.data)) return { ok: false, problem: 'the answer has no "data" list of models' };
  const { models, skipped } = readListedEntries(body.data, (entry) => {
    const id = listedModelId(entry.id);
    if (!id) return undefined;
    const top = isListedRecord(entry.top_provider) ? entry.top_provider : {};
    return definedFields({
      id,
      label: listedLabel(entry.name),
      contextWindow: listedTokens(entry.context_length) ?? listedTokens(top.context_length),
      maxOutputTokens: listedTokens(top.max_completion_tokens),
    });
  });
  return { ok: true, models, skipped, hasMore: false };
}

/** The model names of Ollama's `GET /api/tags`, or undefined when the body is not that (the server is not Ollama). */
export function parseOllamaTags(body: unknown): string[] | undefined {
  if (!isListedRecord(body) || !Array.isArray(body.models)) return undefined;
  const { models } = readListedEntries(body.models, (entry) => {
    const id = listedModelId(entry.model) ?? listedModelId(entry.name);
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
  if (!isListedRecord(body)) return undefined;
  if (typeof body.parameters === 'string') {
    const numCtx = /^\s*num_ctx\s+(\d+)\s*$/m.exec(body.parameters);
    const value = numCtx ? listedTokens(Number(numCtx[1])) : undefined;
    if (value !== undefined) return value;
  }
  const info = body.model_info;
  if (!isListedRecord(info)) return undefined;
  const arch = info['general.architecture'];
  if (typeof arch !== 'string' || !arch || arch.length > 100) return undefined;
  return listedTokens(info[`${arch}.context_length`]);
}
