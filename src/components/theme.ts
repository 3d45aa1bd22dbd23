import type { Theme } from '../store';

/** The browser's own colour (its toolbar on a phone) for each palette: `--bg` in base.css. */
const THEME_COLORS = { light: { color: '#ffffff', media: '(prefers-color-scheme: light)' }, dark: { color: '#0f1217', media: '(prefers-color-scheme: dark)' } };

/**
 * Applies the Appearance setting: `data-theme` on `<html>`, from which the stylesheet picks
 * the palette, and the `theme-color` metas of index.html, which follow the system's scheme
 * unless a theme is chosen (then the chosen one's colour applies whatever the system says).
 */
export function applyTheme(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
  for (const [scheme, { color, media }] of Object.entries(THEME_COLORS)) {
    const meta = document.querySelector<HTMLMetaElement>(`meta[name="theme-color"][content="${color}"]`);
    if (!meta) continue;
    meta.media = theme === 'system' ? media : theme === scheme ? 'all' : 'not all';
  }
}
