import { describe, expect, it } from 'vitest';
import { openTestStorage } from './helpers';

describe('settings, calibration, summary cache', () => {
  it('stores and reads each by key', async () => {
    const { repositories } = await openTestStorage();
    await repositories.settings.setSetting('settings', { provider: 'openai', apiKeys: { openai: 'sk-test' } });
    expect(await repositories.settings.getSetting('settings')).toEqual({ provider: 'openai', apiKeys: { openai: 'sk-test' } });
    await repositories.settings.deleteSetting('settings');
    expect(await repositories.settings.getSetting('settings')).toBeUndefined();

    await repositories.settings.setCalibration('gpt-4.1', { ratio: 0.93 });
    expect(await repositories.settings.getCalibration('gpt-4.1')).toEqual({ ratio: 0.93 });
    expect(await repositories.settings.getCalibration('o3')).toBeUndefined();

    await repositories.settings.setCachedSummary('hash-1', 'The user asked about Lisbon.');
    expect(await repositories.settings.getCachedSummary('hash-1')).toBe('The user asked about Lisbon.');
    expect(await repositories.settings.getCachedSummary('hash-2')).toBeUndefined();
  });
});
