// @vitest-environment node
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newestLeaf, settleOrder } from '../../src/sync/settleOrder';

describe('settleOrder', () => {
  it('puts every parent before its children, whatever order the server sent them in', () => {
    const tree = fc
      .integer({ min: 1, max: 30 })
      .chain((n) =>
        fc
          .tuple(fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: n, maxLength: n }), fc.array(fc.nat(), { minLength: n, maxLength: n }))
          .map(([times, parents]) => times.map((createdAt, i) => ({ id: `m${i}`, createdAt, parentId: i === 0 ? null : `m${parents[i]! % i}` }))),
      );
    fc.assert(
      fc.property(
        tree.chain((messages) => fc.shuffledSubarray(messages, { minLength: messages.length })),
        (shuffled) => {
          const order = settleOrder(shuffled).map((m) => m.id);
          expect(new Set(order).size).toBe(shuffled.length);
          for (const message of shuffled) {
            if (message.parentId) expect(order.indexOf(message.parentId)).toBeLessThan(order.indexOf(message.id));
          }
        },
      ),
    );
  });

  it('survives a parent loop a hostile record could make', () => {
    const order = settleOrder([
      { id: 'a', parentId: 'b', createdAt: 1 },
      { id: 'b', parentId: 'a', createdAt: 2 },
    ]);
    expect(order.map((m) => m.id).sort()).toEqual(['a', 'b']);
  });
});

describe('newestLeaf', () => {
  const message = (id: string, parentId: string | null, createdAt: number, kind: 'message' | 'summary' = 'message') => ({ id, parentId, createdAt, kind });

  it('is the newest message nothing follows, in any order of arrival', () => {
    // q1 → a1 → q2 → a2 (newest), and an older version a1b of the first answer.
    const messages = [message('q1', null, 1), message('a1', 'q1', 2), message('a1b', 'q1', 3), message('q2', 'a1', 4), message('a2', 'q2', 5)];
    for (const order of [messages, [...messages].reverse()]) expect(newestLeaf(order)?.id).toBe('a2');
  });

  it('never picks a summary, breaks a tie by id, and has none for nothing', () => {
    expect(newestLeaf([message('q', null, 1), message('s', 'q', 9, 'summary')])?.id).toBe('q');
    expect(newestLeaf([message('b', null, 1), message('c', null, 1), message('a', null, 1)])?.id).toBe('c');
    expect(newestLeaf([])).toBeUndefined();
  });
});
