import { afterEach, describe, expect, it, vi } from 'vitest';
import { browserDeps } from '../../src/browserRuntime';
import { createRuntime } from '../../src/store/runtime';

afterEach(() => {
  vi.useRealTimers();
});

const runtime = () => createRuntime({ ...browserDeps(), session: undefined, newId: () => 'generated' });
const texts = (rt: ReturnType<typeof runtime>) => rt.store.getState().notices.map((n) => n.text);

describe('notices', () => {
  it('fade after their time, and errors stay until dismissed', () => {
    vi.useFakeTimers();
    const rt = runtime();
    rt.notifier.notify({ id: 'info', tone: 'info', text: 'Saved.' });
    rt.notifier.notify({ id: 'error', tone: 'error', text: 'Could not save.' });
    vi.advanceTimersByTime(8000);
    expect(texts(rt)).toEqual(['Could not save.']);
    rt.notifier.dismiss('error');
    expect(texts(rt)).toEqual([]);
  });

  it('keeps a newer notice under the same id for its own time, whatever the older one’s timer says', () => {
    // A retry notice replaced by the next retry's: the first one's timer must not take the second away.
    vi.useFakeTimers();
    const rt = runtime();
    rt.notifier.notify({ id: 'retry-c1', tone: 'warning', text: 'Overloaded; retrying in 1 s.' }, 1500);
    vi.advanceTimersByTime(1000);
    rt.notifier.notify({ id: 'retry-c1', tone: 'warning', text: 'Rate limited; retrying in 1 s.' }, 2500);
    vi.advanceTimersByTime(1000);
    expect(texts(rt)).toEqual(['Rate limited; retrying in 1 s.']);
    vi.advanceTimersByTime(1500);
    expect(texts(rt)).toEqual([]);
  });
});
