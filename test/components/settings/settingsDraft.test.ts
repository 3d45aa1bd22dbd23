import { describe, expect, it } from 'vitest';
import { initialDraft, settingsDraftReducer, type SettingsDraftAction } from '../../../src/components/settings/settingsDraft';
import { DEFAULT_SETTINGS, type Settings } from '../../../src/store/settings';

const edit = (settings: Settings, ...actions: SettingsDraftAction[]): Settings => actions.reduce(settingsDraftReducer, initialDraft(settings, [])).settings;

describe('settingsDraftReducer', () => {
  it("edits the chosen provider's key, base URL and model, and leaves the other providers' as they were", () => {
    const settings = edit(
      { ...DEFAULT_SETTINGS, provider: 'openai', apiKeys: { anthropic: 'sk-ant-kept' }, models: { anthropic: 'claude-haiku-4-5' } },
      { type: 'editForProvider', field: 'apiKeys', value: 'sk-openai' },
      { type: 'editForProvider', field: 'baseUrls', value: 'https://proxy.example.com/v1' },
      { type: 'editForProvider', field: 'models', value: 'gpt-test' },
    );
    expect(settings).toMatchObject({
      apiKeys: { anthropic: 'sk-ant-kept', openai: 'sk-openai' },
      baseUrls: { openai: 'https://proxy.example.com/v1' },
      models: { anthropic: 'claude-haiku-4-5', openai: 'gpt-test' },
    });
  });

  it("forgets a model's window once it is cleared, and only that model's of the chosen provider", () => {
    const settings = edit(
      { ...DEFAULT_SETTINGS, provider: 'anthropic', modelWindows: { anthropic: { a: 1000, b: 2000 }, openai: { a: 5000 } } },
      { type: 'setModelWindow', modelId: 'a', tokens: undefined },
      { type: 'setModelWindow', modelId: 'c', tokens: 3000 },
    );
    expect(settings.modelWindows).toStrictEqual({ anthropic: { b: 2000, c: 3000 }, openai: { a: 5000 } });
  });
});
