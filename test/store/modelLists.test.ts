/**
 * The models each endpoint lists, in the store: cached per provider and base URL with the
 * time fetched, kept in storage across a reload, failures said next to the list, and the
 * windows they state planned with; switching the model replans at once.
 */
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_CONTEXT_WINDOW, WindowpaneError, type Conversation } from '../../src/core';
import { openWindowpaneStorage, randomUuid } from '../../src/persistence';
import type { ModelListing } from '../../src/providers';
import { modelPickerIn } from '../../src/store';
import { createRuntime, type AppDeps, type Runtime } from '../../src/store/runtime';
import { SETTINGS_KEY } from '../../src/store/storedSettings';
import { hydrate } from '../../src/store/hydrate';
import { looksListable, MODEL_LISTS_KEY, modelListKey, readModelLists, refreshModels } from '../../src/store/modelLists';
import type { ListTarget } from '../../src/store/state';
import { switchModel } from '../../src/store/modelSwitch';
import { contextFor, planFor } from '../../src/store/planning';
import { DEFAULT_SETTINGS, type Settings } from '../../src/store/settings';
import { readSettings } from '../../src/store/storedSettings';

const ANTHROPIC: ListTarget = { provider: 'anthropic', apiKey: 'sk-ant-test-key', baseUrl: 'https://api.anthropic.com/' };
const LISTING: ModelListing = {
  models: [{ id: 'claude-next', label: 'Claude Next', contextWindow: 300_000, maxOutputTokens: 64_000 }, { id: 'claude-haiku-4-5' }, { id: 'claude-mystery' }],
  truncated: false,
};

async function start(listModels?: AppDeps['listModels'], fresh = true): Promise<Runtime> {
  if (fresh) globalThis.indexedDB = new IDBFactory();
  const rt = createRuntime({
    openStorage: () => openWindowpaneStorage(),
    createProvider: async () => {
      throw new Error('no sends here');
    },
    now: () => Date.UTC(2026, 10, 25, 12),
    newId: randomUuid,
    runJavascript: async () => ({ logs: [], truncated: false }),
    listModels,
  });
  await hydrate(rt);
  return rt;
}

const anthropicSettings = (patch: Partial<Settings> = {}): Settings => ({
  ...DEFAULT_SETTINGS,
  provider: 'anthropic',
  apiKeys: { anthropic: 'sk-ant-test-key' },
  models: { anthropic: 'claude-next' },
  ...patch,
});

describe('model lists in the store', () => {
  it('caches a listing per provider and base URL with the time fetched, and keeps it in storage across a reload', async () => {
    const listModels = vi.fn(async () => LISTING);
    const rt = await start(listModels);
    await refreshModels(rt, ANTHROPIC);
    // No signal: a listing asked for is never stopped.
    expect(listModels).toHaveBeenCalledWith({ ...ANTHROPIC, baseUrl: 'https://api.anthropic.com' }, undefined);
    const key = modelListKey('anthropic', undefined);
    expect(rt.store.getState().modelLists[key]).toEqual({
      status: 'ready',
      models: LISTING.models,
      truncated: false,
      fetchedAt: Date.UTC(2026, 10, 25, 12),
      error: undefined,
    });
    rt.storage?.close();

    const again = await start(undefined, false);
    expect(again.store.getState().modelLists[key]).toMatchObject({ status: 'ready', models: LISTING.models, fetchedAt: Date.UTC(2026, 10, 25, 12) });
    again.storage?.close();
  });

  it('says a failure next to the list and keeps the models of the last success', async () => {
    let fail = false;
    const rt = await start(async () => {
      if (fail) throw new WindowpaneError('auth', 'The key was refused (401) by Anthropic. Check that it is complete and still active.');
      return LISTING;
    });
    await refreshModels(rt, ANTHROPIC);
    fail = true;
    await refreshModels(rt, ANTHROPIC);
    const list = rt.store.getState().modelLists[modelListKey('anthropic', undefined)];
    expect(list).toMatchObject({
      status: 'failed',
      error: 'The key was refused (401) by Anthropic. Check that it is complete and still active.',
      models: LISTING.models,
    });
    expect(rt.store.getState().notices).toEqual([]);
    rt.storage?.close();
  });

  it('never throws, whatever the lister throws, and an older answer never overwrites a newer one', async () => {
    const answers: Array<(value: ModelListing) => void> = [];
    const rt = await start(() => new Promise<ModelListing>((resolve) => answers.push(resolve)));
    const first = refreshModels(rt, ANTHROPIC);
    const second = refreshModels(rt, ANTHROPIC);
    answers[1]!({ models: [{ id: 'newer' }], truncated: false });
    await second;
    answers[0]!({ models: [{ id: 'older' }], truncated: false });
    await first;
    expect(rt.store.getState().modelLists[modelListKey('anthropic', undefined)]?.models).toEqual([{ id: 'newer' }]);
    rt.storage?.close();

    const broken = await start(async () => {
      throw 'not even an Error';
    });
    await expect(refreshModels(broken, ANTHROPIC)).resolves.toBeUndefined();
    expect(broken.store.getState().modelLists[modelListKey('anthropic', undefined)]).toMatchObject({
      status: 'failed',
      error: expect.stringContaining('not even an Error'),
    });
    broken.storage?.close();
  });

  it('leaves the list as it was when a listing is stopped because the key was typed on', async () => {
    let calls = 0;
    const rt = await start((_target, signal) =>
      calls++ === 0
        ? Promise.resolve(LISTING)
        : new Promise<ModelListing>((_resolve, reject) => signal?.addEventListener('abort', () => reject(new WindowpaneError('aborted', 'Stopped.')))),
    );
    const key = modelListKey('anthropic', undefined);
    await refreshModels(rt, ANTHROPIC);
    const listed = rt.store.getState().modelLists[key];
    const stop = new AbortController();
    const stopped = refreshModels(rt, { ...ANTHROPIC, apiKey: 'sk-ant-test-key-2' }, stop.signal);
    expect(rt.store.getState().modelLists[key]?.status).toBe('loading');
    stop.abort();
    await stopped;
    expect(rt.store.getState().modelLists[key]).toEqual(listed);

    // An endpoint never listed before shows nothing listed again, not a listing that never ends.
    const other = modelListKey('anthropic', 'https://proxy.example.com');
    const stopOther = new AbortController();
    const stoppedOther = refreshModels(rt, { ...ANTHROPIC, baseUrl: 'https://proxy.example.com' }, stopOther.signal);
    stopOther.abort();
    await stoppedOther;
    expect(Object.hasOwn(rt.store.getState().modelLists, other)).toBe(false);
    rt.storage?.close();
  });

  it('reads stored lists as hostile input', () => {
    const lists = readModelLists({
      good: { models: [{ id: 'a', contextWindow: 8192 }, { id: 5 }], fetchedAt: 1, truncated: 'yes' },
      noTime: { models: [] },
      notList: { models: 'x', fetchedAt: 1 },
      junk: 7,
    });
    expect(lists).toEqual({ good: { status: 'ready', models: [{ id: 'a', contextWindow: 8192 }], fetchedAt: 1, truncated: false } });
    expect(readModelLists(null)).toEqual({});
    expect(readModelLists([1, 2])).toEqual({});
  });

  it('plans with the window an endpoint states, and a guess for a model nobody knows', async () => {
    const rt = await start(async () => LISTING);
    rt.store.setState({ settings: anthropicSettings() });
    expect(contextFor(rt, null).model.contextWindow).toBe(DEFAULT_CONTEXT_WINDOW);
    await refreshModels(rt, ANTHROPIC);
    expect(contextFor(rt, null).model).toMatchObject({ contextWindow: 300_000, maxOutputTokens: 64_000 });
    const picker = modelPickerIn(rt.store.getState());
    expect(picker.modelId).toBe('claude-next');
    expect(picker.choices.find((c) => c.id === 'claude-next')).toMatchObject({ contextWindow: 300_000, windowSource: 'endpoint' });
    expect(picker.choices.find((c) => c.id === 'claude-haiku-4-5')).toMatchObject({ contextWindow: 200_000, windowSource: 'registry' });
    expect(picker.choices.find((c) => c.id === 'claude-mystery')).toMatchObject({ contextWindow: DEFAULT_CONTEXT_WINDOW, windowSource: 'guess' });
    // The user's window for that model ends the guess.
    rt.store.setState({ settings: anthropicSettings({ models: { anthropic: 'claude-mystery' }, modelWindows: { anthropic: { 'claude-mystery': 50_000 } } }) });
    expect(contextFor(rt, null).model.contextWindow).toBe(50_000);
    expect(modelPickerIn(rt.store.getState()).choices.find((c) => c.id === 'claude-mystery')).toMatchObject({ contextWindow: 50_000, windowSource: 'yours' });
    // A window set for every model: each model in the picker says it is the one it would be planned with.
    rt.store.setState({ settings: anthropicSettings({ contextWindow: 64_000 }) });
    expect(contextFor(rt, null).model.contextWindow).toBe(64_000);
    for (const choice of modelPickerIn(rt.store.getState()).choices) expect(choice).toMatchObject({ contextWindow: 64_000, windowSource: 'yours' });
    rt.storage?.close();
  });
});

describe('switching the model', () => {
  it('replans the open conversation for the new window at once, and stores the choice', async () => {
    const rt = await start(async () => LISTING);
    rt.store.setState({ settings: anthropicSettings() });
    await refreshModels(rt, ANTHROPIC);
    const conversation: Conversation = await rt.repositories.conversations.createConversation({ title: 'Plans' });
    rt.store.setState({ conversations: [conversation], activeId: conversation.id, messages: { [conversation.id]: [] } });
    expect(planFor(contextFor(rt, conversation.id), []).metrics.contextWindow).toBe(300_000);

    const switching = switchModel(rt, 'claude-haiku-4-5');
    // The state changes before storage answers: the gauge's plan is the new one already.
    expect(planFor(contextFor(rt, conversation.id), []).metrics.contextWindow).toBe(200_000);
    await switching;
    expect((await rt.repositories.conversations.getConversation(conversation.id))?.overrides).toMatchObject({
      provider: 'anthropic',
      model: 'claude-haiku-4-5',
    });
    // Other conversations and new chats keep the default.
    expect(contextFor(rt, null).modelId).toBe('claude-next');
    rt.storage?.close();
  });

  it('keeps an explicit "Context window" as the window of the model it was set with', async () => {
    const rt = await start();
    rt.store.setState({ settings: anthropicSettings({ models: { anthropic: 'claude-mystery' }, contextWindow: 32_000 }) });
    expect(contextFor(rt, null).model.contextWindow).toBe(32_000);
    await switchModel(rt, 'claude-haiku-4-5');
    expect(contextFor(rt, null).model.contextWindow).toBe(200_000);
    const saved = readSettings(await rt.repositories.settings.getSetting(SETTINGS_KEY)).settings;
    expect(saved).toMatchObject({ contextWindow: 0, models: { anthropic: 'claude-haiku-4-5' }, modelWindows: { anthropic: { 'claude-mystery': 32_000 } } });
    await switchModel(rt, 'claude-mystery');
    expect(contextFor(rt, null).model.contextWindow).toBe(32_000);
    rt.storage?.close();
  });
});

describe('stored per-model windows', () => {
  it('keeps valid windows and names what it ignores', () => {
    const { settings, ignored } = readSettings({ modelWindows: { anthropic: { a: 8192, b: -1, c: '9' }, nope: { x: 1 }, openai: 'x' } });
    expect(settings.modelWindows).toEqual({ anthropic: { a: 8192 } });
    expect(ignored).toEqual(['modelWindows.anthropic: 2 not a window']);
    expect(readSettings({ modelWindows: [] }).ignored).toEqual(['modelWindows: not a set of windows']);
  });
});

describe('whether a key and base URL look complete enough to list unasked', () => {
  const KEY = 'sk-ant-api03-0123456789abcdef';
  it.each<[string, ListTarget, boolean]>([
    ['an Anthropic key at the default address', { provider: 'anthropic', apiKey: KEY }, true],
    ['a key still short', { provider: 'anthropic', apiKey: 'sk-ant-api03' }, false],
    ['a key without the provider’s prefix at its own address', { provider: 'anthropic', apiKey: 'x'.repeat(40) }, false],
    ['a key of its own at a proxy', { provider: 'anthropic', apiKey: 'x'.repeat(40), baseUrl: 'https://proxy.example.com' }, true],
    ['an OpenAI key', { provider: 'openai', apiKey: 'sk-proj-0123456789abcdef' }, true],
    ['an address that does not parse', { provider: 'openai', apiKey: 'sk-proj-0123456789abcdef', baseUrl: 'https//api.openai' }, false],
    ['an address that is not http', { provider: 'openai', apiKey: 'sk-proj-0123456789abcdef', baseUrl: 'ftp://example.com/v1' }, false],
    ['an OpenAI-compatible server with no address typed', { provider: 'openai-compatible', apiKey: '' }, false],
    ['an OpenAI-compatible server at a typed address, no key', { provider: 'openai-compatible', apiKey: '', baseUrl: 'http://localhost:1234/v1' }, true],
    ['the Demo', { provider: 'demo', apiKey: KEY }, false],
  ])('%s', (_name, target, expected) => {
    expect(looksListable(target)).toBe(expected);
  });
});

it('stores its lists under a settings key of its own', () => {
  expect(MODEL_LISTS_KEY).not.toBe(SETTINGS_KEY);
});
