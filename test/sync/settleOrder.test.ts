// @vitest-environment node
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { settleOrder } from '../../src/sync/settleOrder';

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
