import { act, renderHook } from '@testing-library/react';
import { useReducer } from 'react';
import { describe, expect, it } from 'vitest';
import { initialDraft, settingsDraftReducer } from '../../../src/components/settings/settingsDraft';
import { useKeyDestination } from '../../../src/components/settings/useKeyDestination';
import { DEFAULT_SETTINGS, type Settings } from '../../../src/store/settings';

const SAVED: Settings = { ...DEFAULT_SETTINGS, provider: 'anthropic', apiKeys: { anthropic: 'sk-ant-saved' }, models: { anthropic: 'claude-haiku-4-5' } };

/** The dialog's draft of SAVED with the base URL changed to `baseUrl`, and the hook over it. */
function keyDestinationFor(baseUrl: string) {
  const { result } = renderHook(() => {
    const [draft, dispatch] = useReducer(settingsDraftReducer, initialDraft({ ...SAVED, baseUrls: { anthropic: baseUrl } }, []));
    return { draft, ...useKeyDestination(SAVED, draft, dispatch) };
  });
  const save = () => {
    let allowed = false;
    act(() => {
      allowed = result.current.confirmSave();
    });
    return allowed;
  };
  return { result, save };
}

describe('useKeyDestination', () => {
  it('asks first whether a saved key may follow its base URL to plain http on another machine, then for the unencrypted address unless the key is cleared', () => {
    const { result, save } = keyDestinationFor('http://10.0.0.5:8000/v1');
    expect(result.current.check.questions).toEqual({
      moved: { from: 'https://api.anthropic.com', to: 'http://10.0.0.5:8000' },
      insecureOrigin: 'http://10.0.0.5:8000',
    });
    expect(result.current.listingBlocked).toBe('Choose above whether your key may go to http://10.0.0.5:8000 before listing its models.');
    // Nothing is said before Save is pressed.
    expect(result.current.check.error).toBeUndefined();
    expect(save()).toBe(false);
    expect(result.current.check.error).toBe('Choose whether your key may go to http://10.0.0.5:8000.');

    act(() => result.current.check.onMoveChoice('keep'));
    expect(result.current.listingBlocked).toBeUndefined();
    expect(save()).toBe(false);
    expect(result.current.check.error).toBe('Confirm that your key may travel unencrypted to http://10.0.0.5:8000, or use an https address.');

    act(() => result.current.check.onMoveChoice('clear'));
    expect(result.current.apiKeys.anthropic).toBe('');
    expect(save()).toBe(true);
    expect(result.current.check.error).toBeUndefined();
  });

  it('keeps the key and records the very origin the user confirmed', () => {
    const { result, save } = keyDestinationFor('http://10.0.0.5:8000/v1');
    act(() => result.current.check.onMoveChoice('keep'));
    act(() => result.current.check.onConfirm(true));
    expect(result.current.check.confirmed).toBe(true);
    expect(save()).toBe(true);
    expect(result.current.apiKeys.anthropic).toBe('sk-ant-saved');
    expect(result.current.draft.settings.keyConfirmedFor.anthropic).toBe('http://10.0.0.5:8000');
    act(() => result.current.check.onConfirm(false));
    expect(save()).toBe(false);
  });
});
