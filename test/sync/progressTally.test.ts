import { describe, expect, it } from 'vitest';
import { createProgressTally } from '../../src/sync/progressTally';

describe('the counts the sync status shows', () => {
  it('counts documents the server took against what the engine set out to send, then what is left to push', () => {
    const tally = createProgressTally();
    expect(tally.sealing(20_101)).toEqual({ done: 0, total: 20_101 });
    expect(tally.pushed(100, 300)).toEqual({ done: 100, total: 20_101 });
    // The engine's own count of records sealed says nothing of the server: the count stays where the server is.
    expect(tally.sealing(20_101)).toEqual({ done: 100, total: 20_101 });
    expect(tally.pushed(20_001, 0)).toEqual({ done: 20_101, total: 20_101 });
    // Parts of a large file are documents too: the total grows with what is still to push.
    expect(tally.pushed(10, 40)).toEqual({ done: 20_111, total: 20_151 });
  });

  it('counts records applied here against what was pulled and what is still on the server', () => {
    const tally = createProgressTally();
    expect(tally.pulled(100, 900)).toEqual({ done: 0, total: 1000 });
    expect(tally.applied(100)).toEqual({ done: 100, total: 1000 });
    expect(tally.pulled(100, 800)).toEqual({ done: 100, total: 1000 });
    expect(tally.applied(100)).toEqual({ done: 200, total: 1000 });
  });

  it('never counts back while the status turns between sending and receiving, and starts afresh once it rests', () => {
    const tally = createProgressTally();
    tally.sealing(500);
    expect(tally.pushed(200, undefined)).toEqual({ done: 200, total: 500 });
    expect(tally.pulled(10, 0)).toEqual({ done: 0, total: 10 });
    expect(tally.pushed(100, undefined)).toEqual({ done: 300, total: 500 });
    expect(tally.applied(10)).toEqual({ done: 10, total: 10 });
    tally.rest();
    expect(tally.pushed(1, 0)).toEqual({ done: 1, total: 1 });
    expect(tally.applied(2)).toEqual({ done: 2, total: 2 });
  });
});
