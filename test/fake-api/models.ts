/**
 * The fake's model lists, in the shapes the providers document:
 * - Anthropic `GET /v1/models` ("List Models"): `{ data: [{ type: 'model', id, display_name,
 *   created_at, max_input_tokens, max_tokens }], has_more, first_id, last_id }`, newest first,
 *   paged with `limit` (1–1000, default 20), `after_id` and `before_id`.
 * - OpenAI `GET /v1/models` ("List models"): `{ object: 'list', data: [{ id, object: 'model',
 *   created, owned_by }] }`, one page.
 * - OpenRouter `GET /api/v1/models` ("Models API standard"): `{ data: [{ id, canonical_slug, name,
 *   created, description, context_length, architecture, pricing, top_provider: { context_length,
 *   max_completion_tokens, is_moderated }, per_request_limits, supported_parameters }] }`.
 * - Ollama `GET /api/tags` ("List Local Models") and `POST /api/show` ("Show Model
 *   Information", body `{ model }`), whose `model_info` holds `<arch>.context_length`; an unknown
 *   model is a 404 `{ error: "model 'x' not found" }`.
 */
import type { ApiFailure } from './types';

/** A model an Ollama server has pulled. */
export interface OllamaModelSpec {
  /** `<arch>.context_length` in its model_info. */
  contextLength: number;
  /** `general.architecture`; default 'llama'. */
  architecture?: string;
  /** A `num_ctx` its Modelfile sets, shown in `parameters`. */
  numCtx?: number;
}

/** A model OpenRouter lists. */
export interface OpenRouterModelSpec {
  id: string;
  name?: string;
  /** Omitted from the entry when undefined. */
  contextLength?: number;
  maxCompletionTokens?: number;
}

export const DEFAULT_OLLAMA_MODELS: Record<string, OllamaModelSpec> = {
  'llama3.2:latest': { contextLength: 131_072, architecture: 'llama' },
  'qwen3:8b': { contextLength: 40_960, architecture: 'qwen3', numCtx: 8192 },
};

export const DEFAULT_OPENROUTER_MODELS: OpenRouterModelSpec[] = [
  { id: 'meta-llama/llama-4-scout', name: 'Meta: Llama 4 Scout', contextLength: 327_680, maxCompletionTokens: 16_384 },
  { id: 'anthropic/claude-opus-5-5', name: 'Anthropic: Claude Opus 5.5', contextLength: 1_000_000, maxCompletionTokens: 128_000 },
];

const CREATED = 1_767_225_600;

/** One page of Anthropic's list, or the 400 a bad `limit` gets. */
export function anthropicModelPage(
  ids: readonly string[],
  query: URLSearchParams,
  describe: (id: string) => Record<string, unknown>,
): { body: unknown } | { failure: ApiFailure } {
  const rawLimit = query.get('limit');
  const limit = rawLimit === null ? 20 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    return {
      failure: { status: 400, type: 'invalid_request_error', message: `limit: Input should be less than or equal to 1000 and greater than or equal to 1` },
    };
  }
  const after = query.get('after_id');
  const before = query.get('before_id');
  let start = 0;
  let end = ids.length;
  // A cursor the list does not hold gives an empty page.
  if (after !== null) start = ids.includes(after) ? ids.indexOf(after) + 1 : ids.length;
  if (before !== null) end = ids.includes(before) ? ids.indexOf(before) : 0;
  const page = before !== null && after === null ? ids.slice(Math.max(start, end - limit), end) : ids.slice(start, Math.min(end, start + limit));
  const hasMore = before !== null && after === null ? ids.indexOf(page[0] ?? '') > 0 : start + page.length < end;
  return { body: { data: page.map(describe), has_more: hasMore, first_id: page[0] ?? null, last_id: page.at(-1) ?? null } };
}

/** One model as Anthropic lists it; `managed`, when given, is stated as its `capabilities.context_management`. */
export function anthropicModel(
  id: string,
  window: number,
  maxTokens: number,
  managed?: { compaction: boolean; contextEditing: boolean },
): Record<string, unknown> {
  const model = { type: 'model', id, display_name: id, created_at: '2026-01-01T00:00:00Z', max_input_tokens: window, max_tokens: Math.min(maxTokens, window) };
  if (!managed) return model;
  const support = (supported: boolean) => ({ supported });
  return {
    ...model,
    capabilities: {
      context_management: {
        supported: managed.compaction || managed.contextEditing,
        compact_20260112: support(managed.compaction),
        clear_tool_uses_20250919: support(managed.contextEditing),
        clear_thinking_20251015: support(managed.contextEditing),
      },
    },
  };
}

export function openAIModel(id: string, ownedBy = 'system'): Record<string, unknown> {
  return { id, object: 'model', created: CREATED, owned_by: ownedBy };
}

export function openRouterModels(models: readonly OpenRouterModelSpec[]): unknown {
  return {
    data: models.map((m) => ({
      id: m.id,
      canonical_slug: m.id,
      name: m.name ?? m.id,
      created: CREATED,
      description: `${m.name ?? m.id}, as listed by the fake.`,
      ...(m.contextLength !== undefined ? { context_length: m.contextLength } : {}),
      architecture: { modality: 'text->text', input_modalities: ['text'], output_modalities: ['text'], tokenizer: 'Other', instruct_type: null },
      pricing: { prompt: '0.000001', completion: '0.000002', request: '0', image: '0' },
      top_provider: { context_length: m.contextLength ?? null, max_completion_tokens: m.maxCompletionTokens ?? null, is_moderated: false },
      per_request_limits: null,
      supported_parameters: ['max_tokens', 'temperature', 'tools'],
    })),
  };
}

export function ollamaTags(models: Readonly<Record<string, OllamaModelSpec>>): unknown {
  return {
    models: Object.entries(models).map(([name, spec]) => ({
      name,
      model: name,
      modified_at: '2026-01-01T00:00:00.000000000Z',
      size: 2_019_393_189,
      digest: 'a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72',
      details: {
        parent_model: '',
        format: 'gguf',
        family: spec.architecture ?? 'llama',
        families: [spec.architecture ?? 'llama'],
        parameter_size: '3.2B',
        quantization_level: 'Q4_K_M',
      },
    })),
  };
}

/** Ollama's `/api/show` answer for `name`, or its 404/400 (status and body). */
export function ollamaShow(models: Readonly<Record<string, OllamaModelSpec>>, rawBody: string): { status: number; body: unknown } {
  let request: unknown;
  try {
    request = JSON.parse(rawBody);
  } catch {
    return { status: 400, body: { error: 'invalid character in request body' } };
  }
  const record = typeof request === 'object' && request !== null ? (request as Record<string, unknown>) : {};
  // `name` is the older spelling of `model`, still accepted.
  const name = typeof record.model === 'string' ? record.model : typeof record.name === 'string' ? record.name : '';
  const spec = models[name] ?? models[`${name}:latest`];
  if (!spec) return { status: 404, body: { error: `model '${name}' not found` } };
  const arch = spec.architecture ?? 'llama';
  const parameters = [
    'num_keep                       24',
    ...(spec.numCtx ? [`num_ctx                        ${spec.numCtx}`] : []),
    'stop                           "<|eot_id|>"',
  ].join('\n');
  return {
    status: 200,
    body: {
      license: 'fake',
      modelfile: `# Modelfile generated by "ollama show"\nFROM ${name}\n${spec.numCtx ? `PARAMETER num_ctx ${spec.numCtx}\n` : ''}`,
      parameters,
      template: '{{ .Prompt }}',
      details: { parent_model: '', format: 'gguf', family: arch, families: [arch], parameter_size: '3.2B', quantization_level: 'Q4_K_M' },
      model_info: {
        'general.architecture': arch,
        'general.parameter_count': 3_212_749_888,
        [`${arch}.context_length`]: spec.contextLength,
        [`${arch}.embedding_length`]: 3072,
        'tokenizer.ggml.model': 'gpt2',
      },
      capabilities: ['completion', 'tools'],
      modified_at: '2026-01-01T00:00:00.000000000Z',
    },
  };
}
