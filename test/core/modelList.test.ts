import { describe, expect, it } from 'vitest';
import {
  DEFAULT_CONTEXT_WINDOW,
  MAX_LISTED_MODELS,
  MODEL_REGISTRY,
  listedModelInfos,
  readListedModels,
  modelChoices,
  parseAnthropicModelPage,
  parseOllamaShow,
  parseOllamaTags,
  parseOpenAIModelList,
  resolveModelInfo,
} from '../../src/core';

const anthropicRegistry = MODEL_REGISTRY.filter((m) => m.provider === 'anthropic');

describe('parseAnthropicModelPage', () => {
  it('reads ids, display names, max_input_tokens as the window and max_tokens as the output limit, and the paging cursor', () => {
    const page = parseAnthropicModelPage({
      data: [
        {
          type: 'model',
          id: 'claude-opus-4-8',
          display_name: 'Claude Opus 4.8',
          created_at: '2026-01-01T00:00:00Z',
          max_input_tokens: 300_000,
          max_tokens: 64_000,
        },
        { type: 'model', id: 'claude-old', display_name: 'Old', max_input_tokens: null, max_tokens: null },
      ],
      has_more: true,
      first_id: 'claude-opus-4-8',
      last_id: 'claude-old',
    });
    expect(page).toEqual({
      ok: true,
      models: [
        { id: 'claude-opus-4-8', label: 'Claude Opus 4.8', contextWindow: 300_000, maxOutputTokens: 64_000 },
        { id: 'claude-old', label: 'Old' },
      ],
      skipped: 0,
      hasMore: true,
      lastId: 'claude-old',
    });
  });

  it('skips entries without a usable id and ignores numbers of the wrong type or out of range', () => {
    const page = parseAnthropicModelPage({
      data: [
        null,
        42,
        { id: '' },
        { id: 7 },
        { id: 'x'.repeat(201) },
        { id: 'bad\u0000id' },
        { id: 'ok', display_name: { html: '<b>' }, max_input_tokens: '200000', max_tokens: -1 },
        { id: 'ok', max_input_tokens: 1 },
        { id: 'fractional', max_input_tokens: 1.5, max_tokens: 1e12 },
        { id: 'nan', max_input_tokens: Number.NaN },
      ],
      has_more: 'yes',
    });
    expect(page).toEqual({ ok: true, models: [{ id: 'ok' }, { id: 'fractional' }, { id: 'nan' }], skipped: 7, hasMore: false });
  });

  it('reads whether each model compacts and clears tool results from its capabilities, and nothing it does not state', () => {
    const managed = (fields: Record<string, unknown>) => ({ context_management: { supported: true, ...fields } });
    const page = parseAnthropicModelPage({
      data: [
        { id: 'both', capabilities: managed({ compact_20260112: { supported: true }, clear_tool_uses_20250919: { supported: true } }) },
        { id: 'clears-only', capabilities: managed({ compact_20260112: null, clear_tool_uses_20250919: { supported: true } }) },
        { id: 'none', capabilities: { context_management: { supported: false, compact_20260112: { supported: true } } } },
        { id: 'silent', capabilities: { image_input: { supported: true } } },
        { id: 'odd', capabilities: managed({ compact_20260112: { supported: 'yes' }, clear_tool_uses_20250919: 'no' }) },
        { id: 'old' },
      ],
    });
    expect(page).toMatchObject({
      ok: true,
      models: [
        { id: 'both', compaction: true, contextEditing: true },
        { id: 'clears-only', compaction: false, contextEditing: true },
        { id: 'none', compaction: false, contextEditing: false },
        { id: 'silent' },
        { id: 'odd' },
        { id: 'old' },
      ],
    });
    const models = page.ok ? page.models : [];
    for (const model of models.slice(3)) expect(Object.keys(model)).toEqual(['id']);
  });

  it('does not page on when has_more comes without a cursor', () => {
    expect(parseAnthropicModelPage({ data: [], has_more: true, last_id: null })).toMatchObject({ ok: true, hasMore: false });
  });

  it('fails plainly on a body that is not a list', () => {
    for (const body of [undefined, null, 'Not Found', [], {}, { data: 'x' }, { data: { id: 'a' } }]) {
      expect(parseAnthropicModelPage(body)).toEqual({ ok: false, problem: 'the answer has no "data" list of models' });
    }
  });
});

describe('parseOpenAIModelList', () => {
  it('reads OpenAI’s ids-only list', () => {
    const list = parseOpenAIModelList({ object: 'list', data: [{ id: 'gpt-5.5', object: 'model', created: 1, owned_by: 'system' }] });
    expect(list).toEqual({ ok: true, models: [{ id: 'gpt-5.5' }], skipped: 0, hasMore: false });
  });

  it('reads OpenRouter’s name, context_length and top provider’s max_completion_tokens', () => {
    const list = parseOpenAIModelList({
      data: [
        {
          id: 'meta-llama/llama-4',
          name: 'Meta: Llama 4',
          context_length: 131_072,
          top_provider: { context_length: 65_536, max_completion_tokens: 8192, is_moderated: false },
        },
        { id: 'only-top', top_provider: { context_length: 32_768, max_completion_tokens: null } },
        { id: 'hostile', name: 42, context_length: '131072', top_provider: 'x' },
      ],
    });
    expect(list).toMatchObject({
      ok: true,
      models: [
        { id: 'meta-llama/llama-4', label: 'Meta: Llama 4', contextWindow: 131_072, maxOutputTokens: 8192 },
        { id: 'only-top', contextWindow: 32_768 },
        { id: 'hostile' },
      ],
    });
  });

  it('keeps at most MAX_LISTED_MODELS of a huge list, without duplicates', () => {
    const data = Array.from({ length: MAX_LISTED_MODELS + 500 }, (_, i) => ({ id: `m-${i % (MAX_LISTED_MODELS + 100)}` }));
    const list = parseOpenAIModelList({ data });
    expect(list.ok && list.models.length).toBe(MAX_LISTED_MODELS);
    expect(list.ok && new Set(list.models.map((m) => m.id)).size).toBe(MAX_LISTED_MODELS);
  });

  it('fails plainly on what is not a list', () => {
    expect(parseOpenAIModelList({ error: { message: 'nope' } })).toEqual({ ok: false, problem: 'the answer has no "data" list of models' });
  });
});

describe('Ollama', () => {
  it('reads the names of /api/tags, and nothing from another server’s answer', () => {
    expect(parseOllamaTags({ models: [{ name: 'llama3.2:latest', model: 'llama3.2:latest' }, { name: 'qwen3:8b' }, { size: 1 }] })).toEqual([
      'llama3.2:latest',
      'qwen3:8b',
    ]);
    expect(parseOllamaTags({ data: [] })).toBeUndefined();
    expect(parseOllamaTags('<html>')).toBeUndefined();
  });

  it('reads the window from /api/show: num_ctx when set, else the architecture’s context_length', () => {
    const modelInfo = { 'general.architecture': 'llama', 'llama.context_length': 131_072, 'llama.embedding_length': 4096 };
    expect(parseOllamaShow({ model_info: modelInfo, parameters: 'stop "<|eot_id|>"' })).toBe(131_072);
    expect(parseOllamaShow({ model_info: modelInfo, parameters: 'num_keep 24\nnum_ctx 8192\nstop "x"' })).toBe(8192);
    expect(parseOllamaShow({ model_info: { 'general.architecture': 'gptoss', 'gptoss.context_length': 131_072 } })).toBe(131_072);
  });

  it('finds no window in a hostile or silent /api/show answer', () => {
    for (const body of [
      null,
      'x',
      {},
      { model_info: [] },
      { model_info: { 'general.architecture': 7 } },
      { model_info: { 'general.architecture': 'llama', 'llama.context_length': '8192' } },
      { model_info: { 'general.architecture': 'llama' }, parameters: 'num_ctx 0' },
    ]) {
      expect(parseOllamaShow(body)).toBeUndefined();
    }
  });
});

describe('modelChoices', () => {
  it('keeps the registry’s documented window for a known model the endpoint is silent about', () => {
    const choices = modelChoices(anthropicRegistry, [{ id: 'claude-haiku-4-5' }]);
    expect(choices.find((c) => c.id === 'claude-haiku-4-5')).toEqual({
      id: 'claude-haiku-4-5',
      label: 'Claude Haiku 4.5',
      contextWindow: 200_000,
      windowSource: 'registry',
      listed: true,
    });
  });

  it('takes the window the endpoint states over the registry’s', () => {
    const choices = modelChoices(anthropicRegistry, [{ id: 'claude-haiku-4-5', contextWindow: 150_000 }]);
    expect(choices.find((c) => c.id === 'claude-haiku-4-5')).toMatchObject({ contextWindow: 150_000, windowSource: 'endpoint' });
  });

  it('knows a dated or namespaced id by its registry entry', () => {
    const [dated, namespaced] = modelChoices([], [{ id: 'claude-opus-5-5-20261101' }, { id: 'anthropic/claude-opus-5-5' }]);
    expect(dated).toMatchObject({ label: 'Claude Opus 5.5', contextWindow: 1_000_000, windowSource: 'registry' });
    expect(namespaced).toMatchObject({ label: 'Claude Opus 5.5', contextWindow: 1_000_000, windowSource: 'registry' });
  });

  it('marks a model nobody knows the window of as a guess, until the user gives one', () => {
    expect(modelChoices([], [{ id: 'llama-local' }])).toEqual([
      { id: 'llama-local', label: 'llama-local', contextWindow: DEFAULT_CONTEXT_WINDOW, windowSource: 'guess', listed: true },
    ]);
    expect(modelChoices([], [{ id: 'llama-local' }], { 'llama-local': 32_768 })[0]).toMatchObject({ contextWindow: 32_768, windowSource: 'yours' });
    // A stored value that is not a window is not the user's window.
    expect(modelChoices([], [{ id: 'llama-local' }], { 'llama-local': -3 })[0]).toMatchObject({ windowSource: 'guess' });
  });
});

describe('listedModelInfos', () => {
  it('makes the stated windows win in resolveModelInfo, keeping the registry’s prices', () => {
    const custom = listedModelInfos(
      [{ id: 'claude-haiku-4-5', contextWindow: 150_000 }, { id: 'silent' }, { id: 'llama', contextWindow: 8192 }],
      'anthropic',
      '2026-11-25',
    );
    expect(custom.map((m) => m.id)).toEqual(['claude-haiku-4-5', 'llama']);
    const haiku = resolveModelInfo('claude-haiku-4-5', { custom });
    expect(haiku).toMatchObject({ contextWindow: 150_000, maxOutputTokens: 64_000, known: true, prices: { input: 1, output: 5 } });
    const llama = resolveModelInfo('llama', { custom, provider: 'openai-compatible' });
    expect(llama).toMatchObject({ contextWindow: 8192, maxOutputTokens: 2048, known: true });
    expect(llama.prices).toBeUndefined();
  });

  it('carries what the endpoint stated of the provider’s context management, and reads it back from storage', () => {
    const stored = readListedModels([
      { id: 'claude-sonnet-5-5', contextWindow: 1_000_000, compaction: true, contextEditing: false },
      { id: 'claude-opus-4-6', contextWindow: 1_000_000, compaction: 'yes' },
    ]);
    expect(stored).toEqual([
      { id: 'claude-sonnet-5-5', contextWindow: 1_000_000, compaction: true, contextEditing: false },
      { id: 'claude-opus-4-6', contextWindow: 1_000_000 },
    ]);
    const custom = listedModelInfos(stored ?? [], 'anthropic', '2026-11-29');
    expect(resolveModelInfo('claude-sonnet-5-5', { custom })).toMatchObject({ providerCompaction: true, providerContextEditing: false });
    expect(resolveModelInfo('claude-opus-4-6', { custom }).providerCompaction).toBeUndefined();
  });
});
