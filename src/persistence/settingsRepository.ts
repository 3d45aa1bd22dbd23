/**
 * Small records kept by key: the settings (API keys among them), the token estimator's
 * calibration per model, and the summaries the provider wrote, cached by what they cover.
 */
import { withTransaction } from './db';
import type { RepositoryContext } from './repositoryContext';

/** The key of the settings record (provider, keys, model, window, tools). */
export const SETTINGS_KEY = 'settings';

export interface SettingsRepository {
  getSetting<T = unknown>(key: string): Promise<T | undefined>;
  setSetting(key: string, value: unknown): Promise<void>;
  deleteSetting(key: string): Promise<void>;
  /** Calibration for one model id; the shape is the token estimator's. */
  getCalibration<T = unknown>(model: string): Promise<T | undefined>;
  setCalibration(model: string, value: unknown): Promise<void>;
  getCachedSummary(hash: string): Promise<string | undefined>;
  setCachedSummary(hash: string, text: string): Promise<void>;
}

export function createSettingsRepository({ db, now, announce }: RepositoryContext): SettingsRepository {
  return {
    async getSetting<T>(key: string) {
      return (await withTransaction(db, ['settings'], 'readonly', 'read settings', (tx) => tx.store.get(key))) as T | undefined;
    },

    async setSetting(key, value) {
      await withTransaction(db, ['settings'], 'readwrite', 'save settings', (tx) => tx.store.put(value, key));
      announce({ type: 'settings-changed', settingKey: key });
    },

    async deleteSetting(key) {
      await withTransaction(db, ['settings'], 'readwrite', 'save settings', (tx) => tx.store.delete(key));
      announce({ type: 'settings-changed', settingKey: key });
    },

    async getCalibration<T>(model: string) {
      return (await withTransaction(db, ['calibration'], 'readonly', 'read calibration', (tx) => tx.store.get(model))) as T | undefined;
    },

    async setCalibration(model, value) {
      await withTransaction(db, ['calibration'], 'readwrite', 'save calibration', (tx) => tx.store.put(value, model));
    },

    async getCachedSummary(hash) {
      const record = await withTransaction(db, ['summaryCache'], 'readonly', 'read the summary cache', (tx) => tx.store.get(hash));
      return record?.text;
    },

    async setCachedSummary(hash, text) {
      await withTransaction(db, ['summaryCache'], 'readwrite', 'cache the summary', (tx) => tx.store.put({ hash, text, createdAt: now() }));
    },
  };
}
