import { within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';

/** The Settings dialog's sections, as their tabs name them. */
export type SettingsSection = 'Model and key' | 'Context' | 'Tools' | 'Storage' | 'Sync' | 'Appearance';

/** Chooses a section of the open Settings dialog by its tab, as a user would; returns queries within its panel. */
export async function showSettingsSection(dialog: HTMLElement, name: SettingsSection) {
  await userEvent.click(within(dialog).getByRole('tab', { name }));
  return within(within(dialog).getByRole('tabpanel', { name }));
}
