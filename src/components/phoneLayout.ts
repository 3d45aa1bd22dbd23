import { useEffect, useSyncExternalStore } from 'react';

/** The width below which the app is laid out for a phone; `styles/phone.css` uses the same query. */
const PHONE_QUERY = '(max-width: 720px)';

function subscribe(onChange: () => void): () => void {
  if (typeof matchMedia !== 'function') return () => undefined;
  const query = matchMedia(PHONE_QUERY);
  query.addEventListener('change', onChange);
  return () => query.removeEventListener('change', onChange);
}

const isPhone = () => typeof matchMedia === 'function' && matchMedia(PHONE_QUERY).matches;

/** Whether the window is phone-narrow: the conversation list is then a drawer and the header one line. */
export function usePhoneLayout(): boolean {
  return useSyncExternalStore(subscribe, isPhone, () => false);
}

/**
 * Keeps `--keyboard-inset` on the root element: how much of the layout viewport's bottom an
 * on-screen keyboard covers. Phone browsers shrink only the visual viewport when the keyboard
 * opens, so without it the composer would sit under the keyboard. A pinch-zoom shrinks the
 * visual viewport too, and is not a keyboard.
 */
export function useKeyboardInset(): void {
  useEffect(() => {
    const viewport = window.visualViewport;
    if (!viewport) return;
    const root = document.documentElement;
    const update = () => {
      const covered = viewport.scale > 1.01 ? 0 : Math.max(0, Math.round(window.innerHeight - viewport.height - viewport.offsetTop));
      root.style.setProperty('--keyboard-inset', `${covered}px`);
    };
    update();
    viewport.addEventListener('resize', update);
    viewport.addEventListener('scroll', update);
    return () => {
      viewport.removeEventListener('resize', update);
      viewport.removeEventListener('scroll', update);
      root.style.removeProperty('--keyboard-inset');
    };
  }, []);
}
