import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  DEFAULT_CONTEXT_WINDOW,
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEMO_MODEL_ID,
  MODEL_REGISTRY,
  REGISTRY_AS_OF,
  findModelInfo,
  pricesForPrompt,
  resolveModelInfo,
  type ModelInfo,
} from '../../src/core';

describe('MODEL_REGISTRY', () => {
  it('has unique ids, whole-number limits, non-negative prices and a date read', () => {
    const ids = MODEL_REGISTRY.map((model) => model.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const model of MODEL_REGISTRY) {
      expect(Number.isInteger(model.contextWindow) && model.contextWindow > 0).toBe(true);
      expect(Number.isInteger(model.maxOutputTokens) && model.maxOutputTokens > 0).toBe(true);
      expect(model.maxOutputTokens).toBeLessThan(model.contextWindow);
      for (const price of Object.values(model.prices ?? {})) expect(price).toBeGreaterThanOrEqual(0);
      expect(model.asOf).toBe(REGISTRY_AS_OF);
      expect(model.source.length).toBeGreaterThan(0);
    }
  });

  it('lists the current Anthropic line-up first, each with a 1M-token window', () => {
    const current = MODEL_REGISTRY.slice(0, 4);
    expect(current.map((model) => model.id)).toEqual(['claude-fable-5-2', 'claude-opus-5-5', 'claude-sonnet-5-5', 'claude-haiku-5-5']);
    for (const model of current) expect(model.contextWindow).toBe(1_000_000);
  });

  it('prices cache writes and reads separately from input', () => {
    const opus = findModelInfo('claude-opus-5-5')?.info;
    expect(opus?.prices).toEqual({ input: 4, output: 20, cacheWrite: 5, cacheRead: 0.2 });
    const sol = findModelInfo('gpt-6.2-sol')?.info;
    expect(sol?.prices).toEqual({ input: 2, output: 10, cacheWrite: 2.5, cacheRead: 0.1 });
  });

  it('includes the free Demo model with a small window', () => {
    const demo = findModelInfo(DEMO_MODEL_ID)?.info;
    expect(demo).toMatchObject({ provider: 'demo', contextWindow: 4000, maxOutputTokens: 512, prices: { input: 0, output: 0, cacheWrite: 0, cacheRead: 0 } });
  });
});

describe('resolveModelInfo', () => {
  it('uses the registry for a known id', () => {
    const info = resolveModelInfo('claude-sonnet-5-5');
    expect(info).toMatchObject({
      id: 'claude-sonnet-5-5',
      provider: 'anthropic',
      contextWindow: 1_000_000,
      maxOutputTokens: 128_000,
      known: true,
      match: 'exact',
    });
  });

  it('falls back to the default limits for an unknown id, and says so', () => {
    const info = resolveModelInfo('llama-4-local', { provider: 'openai-compatible' });
    expect(info).toMatchObject({
      id: 'llama-4-local',
      provider: 'openai-compatible',
      contextWindow: DEFAULT_CONTEXT_WINDOW,
      maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS,
      known: false,
      match: 'default',
    });
    expect(info.prices).toBeUndefined();
  });

  it('lets explicit settings win over the registry, field by field', () => {
    const info = resolveModelInfo('claude-opus-5-5', { explicit: { contextWindow: 200_000, maxOutputTokens: undefined } });
    expect(info.contextWindow).toBe(200_000);
    expect(info.maxOutputTokens).toBe(128_000); // undefined does not erase the registry's value
    expect(info.known).toBe(true);
    const unknown = resolveModelInfo('my-finetune', { explicit: { contextWindow: 32_768 } });
    expect(unknown).toMatchObject({ contextWindow: 32_768, maxOutputTokens: DEFAULT_MAX_OUTPUT_TOKENS, known: false });
  });

  it('lets custom models win over built-in ones and resolves custom ids', () => {
    const custom: ModelInfo[] = [
      {
        id: 'qwen3-coder',
        provider: 'openai-compatible',
        label: 'Qwen3 Coder (LM Studio)',
        contextWindow: 65_536,
        maxOutputTokens: 8_192,
        source: 'user',
        asOf: '2026-11-20',
      },
      { id: 'gpt-6-luna', provider: 'openai', label: 'Luna via proxy', contextWindow: 128_000, maxOutputTokens: 16_000, source: 'user', asOf: '2026-11-20' },
    ];
    expect(resolveModelInfo('qwen3-coder', { custom })).toMatchObject({ contextWindow: 65_536, known: true, match: 'exact' });
    expect(resolveModelInfo('gpt-6-luna', { custom })).toMatchObject({ label: 'Luna via proxy', contextWindow: 128_000 });
    expect(resolveModelInfo('gpt-6-luna', { custom, explicit: { contextWindow: 64_000 } }).contextWindow).toBe(64_000);
  });

  it('matches dated, versioned and provider-namespaced ids to their model', () => {
    expect(resolveModelInfo('claude-opus-5-5-20261101')).toMatchObject({ id: 'claude-opus-5-5', known: true, match: 'prefix' });
    expect(resolveModelInfo('gpt-6.2-sol-2026-11-17')).toMatchObject({ id: 'gpt-6.2-sol', match: 'prefix' });
    expect(resolveModelInfo('anthropic/claude-haiku-5-5')).toMatchObject({ id: 'claude-haiku-5-5', match: 'prefix' });
    expect(resolveModelInfo('Claude-Opus-5-5')).toMatchObject({ id: 'claude-opus-5-5', match: 'exact' });
    expect(resolveModelInfo('claude-haiku-4-5-20251001')).toMatchObject({ id: 'claude-haiku-4-5', contextWindow: 200_000, match: 'alias' });
  });

  it('never mistakes another version of a family for a known one', () => {
    expect(resolveModelInfo('claude-opus-5-7').known).toBe(false);
    expect(resolveModelInfo('gpt-6.3-sol').known).toBe(false);
  });

  it('rejects explicit and custom values outside their range, naming the field', () => {
    expect(() => resolveModelInfo('claude-opus-5-5', { explicit: { contextWindow: -1 } })).toThrow(ConfigError);
    try {
      resolveModelInfo('x', { explicit: { maxOutputTokens: 1.5 } });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).field).toBe('explicit.maxOutputTokens');
    }
    const badCustom = [
      {
        id: 'c',
        provider: 'openai-compatible',
        label: 'c',
        contextWindow: 8_000,
        maxOutputTokens: 1_000,
        prices: { input: -1, output: 0, cacheWrite: 0, cacheRead: 0 },
        source: 'user',
        asOf: '2026-11-20',
      },
    ] as ModelInfo[];
    expect(() => resolveModelInfo('c', { custom: badCustom })).toThrow(/custom\[0\]\.prices\.input/);
  });
});

describe('pricesForPrompt', () => {
  it('switches to the long-prompt band above its threshold', () => {
    const haiku = findModelInfo('claude-haiku-5-5')!.info;
    expect(pricesForPrompt(haiku, 100_000)?.input).toBe(0.1);
    expect(pricesForPrompt(haiku, 100_001)?.input).toBe(0.5);
    const luna = findModelInfo('gpt-6-luna')!.info;
    expect(pricesForPrompt(luna, 300_000)).toEqual({ input: 0.2, output: 0.75, cacheWrite: 0.25, cacheRead: 0.02 });
    expect(pricesForPrompt({ prices: undefined }, 10)).toBeUndefined();
  });
});
