import { useRef } from 'react';

/** How far (px) a finger must move right, mostly sideways, to count as a swipe. */
const SWIPE_DISTANCE = 40;

/**
 * A thin strip along the left edge of a phone screen: a swipe to the right from it calls
 * `onSwipe` (it opens the conversations). It takes the touch for itself (`touch-action:
 * none` in its style), so the browser does not claim the gesture as a scroll.
 */
export function EdgeSwipe({ onSwipe }: { onSwipe: () => void }) {
  const start = useRef<{ id: number; x: number; y: number } | null>(null);
  return (
    <div
      className="edge-swipe"
      aria-hidden="true"
      onPointerDown={(event) => {
        start.current = { id: event.pointerId, x: event.clientX, y: event.clientY };
        event.currentTarget.setPointerCapture(event.pointerId);
      }}
      onPointerMove={(event) => {
        const from = start.current;
        if (!from || from.id !== event.pointerId) return;
        const dx = event.clientX - from.x;
        if (dx >= SWIPE_DISTANCE && dx > 2 * Math.abs(event.clientY - from.y)) {
          start.current = null;
          onSwipe();
        }
      }}
      onPointerUp={() => (start.current = null)}
      onPointerCancel={() => (start.current = null)}
    />
  );
}
