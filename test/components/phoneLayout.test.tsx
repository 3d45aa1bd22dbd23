import { act, renderHook } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { useKeyboardInset, usePhoneLayout } from '../../src/components/phoneLayout';

/** A stand-in for `window.visualViewport`, which jsdom lacks: its size is set by the test. */
class FakeVisualViewport extends EventTarget {
  height = window.innerHeight;
  offsetTop = 0;
  scale = 1;
  set(change: Partial<Pick<FakeVisualViewport, 'height' | 'offsetTop' | 'scale'>>) {
    Object.assign(this, change);
    this.dispatchEvent(new Event('resize'));
  }
}

const inset = () => document.documentElement.style.getPropertyValue('--keyboard-inset');

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('useKeyboardInset', () => {
  it('sets how much of the screen an on-screen keyboard covers, and nothing for a pinch-zoom', () => {
    const viewport = new FakeVisualViewport();
    vi.stubGlobal('visualViewport', viewport);
    const { unmount } = renderHook(() => useKeyboardInset());
    expect(inset()).toBe('0px');

    viewport.set({ height: window.innerHeight - 300 });
    expect(inset()).toBe('300px');
    // The browser scrolled the page up by 100px to show the box: the keyboard covers 200px of the layout.
    viewport.set({ offsetTop: 100 });
    expect(inset()).toBe('200px');
    // Zoomed in, the visual viewport is small for another reason.
    viewport.set({ height: window.innerHeight / 2, offsetTop: 0, scale: 2 });
    expect(inset()).toBe('0px');
    viewport.set({ height: window.innerHeight, scale: 1 });
    expect(inset()).toBe('0px');

    unmount();
    expect(inset()).toBe('');
  });
});

describe('usePhoneLayout', () => {
  it('follows the phone-width media query', () => {
    const listeners = new Set<() => void>();
    let matches = false;
    vi.stubGlobal('matchMedia', (query: string) => ({
      get matches() {
        return query === '(max-width: 720px)' && matches;
      },
      addEventListener: (_: string, cb: () => void) => listeners.add(cb),
      removeEventListener: (_: string, cb: () => void) => listeners.delete(cb),
    }));
    const { result } = renderHook(() => usePhoneLayout());
    expect(result.current).toBe(false);
    matches = true;
    act(() => listeners.forEach((cb) => cb()));
    expect(result.current).toBe(true);
  });

  it('is the desktop layout where media queries are unknown', () => {
    vi.stubGlobal('matchMedia', undefined);
    expect(renderHook(() => usePhoneLayout()).result.current).toBe(false);
  });
});
