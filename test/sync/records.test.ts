// @vitest-environment node
/**
 * The merge rules every device applies: whatever order the versions of a record arrive
 * in, every device ends with the same record (commutative, associative, idempotent), and
 * the deletion rule keeps a conversation that someone went on with.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonical,
  deletionStands,
  isDeleted,
  mergeConversations,
  mergeMessages,
  mergePayloads,
  mergeSettings,
  readPayload,
  restamp,
  type ConversationPayload,
  type MessagePayload,
  type SettingsPayload,
  type Stamp,
} from '../../src/sync/records';
import { thoughtAnswer } from '../core/thoughtAnswer';

const stamp = fc.tuple(fc.integer({ min: 0, max: 50 }), fc.constantFrom('device-a', 'device-b', 'device-c')) as fc.Arbitrary<Stamp>;

const conversation: fc.Arbitrary<ConversationPayload> = fc
  .record({
    title: fc.constantFrom('Trip', 'Lisbon trip', 'Renamed'),
    activeLeafId: fc.option(fc.constantFrom('m1', 'm2', 'm3'), { nil: undefined }),
    overrides: fc.option(fc.constantFrom({ model: 'x' }, { model: 'y' }), { nil: undefined }),
    createdAt: fc.integer({ min: 0, max: 10 }),
    updatedAt: fc.integer({ min: 10, max: 20 }),
    stamps: fc.record({ title: stamp, activeLeafId: stamp, overrides: stamp }),
    deleted: fc.option(fc.record({ stamp, known: fc.uniqueArray(fc.constantFrom('m1', 'm2', 'm3', 'm4')) }), { nil: undefined }),
  })
  .map(({ title, activeLeafId, overrides, createdAt, updatedAt, stamps, deleted }) => {
    const payload: ConversationPayload = { kind: 'conversation', conversation: { id: 'c1', title, createdAt, updatedAt }, stamps };
    if (activeLeafId !== undefined) payload.conversation.activeLeafId = activeLeafId;
    if (overrides !== undefined) payload.conversation.overrides = overrides;
    if (deleted) payload.deleted = { stamp: deleted.stamp, known: [...deleted.known].sort() };
    return payload;
  });

// Stamps are unique per (time, device) in practice: one device never sets two values at one instant.
const distinctStamps = (payloads: ConversationPayload[]) => {
  const seen = new Map<string, string>();
  for (const p of payloads) {
    for (const field of ['title', 'activeLeafId', 'overrides'] as const) {
      const key = `${field}:${p.stamps[field].join('@')}`;
      const value = canonical(p.conversation[field]);
      if (seen.has(key) && seen.get(key) !== value) return false;
      seen.set(key, value);
    }
    if (p.deleted) {
      const key = `deleted:${p.deleted.stamp.join('@')}`;
      if (seen.has(key) && seen.get(key) !== canonical(p.deleted.known)) return false;
      seen.set(key, canonical(p.deleted.known));
    }
  }
  return true;
};

const same = (a: unknown, b: unknown) => expect(canonical(a)).toBe(canonical(b));

describe('conversation records', () => {
  it('merge to the same record in either order of arrival', () => {
    fc.assert(
      fc.property(conversation, conversation, (a, b) => {
        fc.pre(distinctStamps([a, b]));
        same(mergeConversations(a, b), mergeConversations(b, a));
      }),
    );
  });

  it('merge three versions to the same record in any grouping and order', () => {
    fc.assert(
      fc.property(conversation, conversation, conversation, (a, b, c) => {
        fc.pre(distinctStamps([a, b, c]));
        const left = mergeConversations(mergeConversations(a, b), c);
        same(left, mergeConversations(a, mergeConversations(b, c)));
        same(left, mergeConversations(mergeConversations(c, a), b));
      }),
    );
  });

  it('merging a version with itself changes nothing', () => {
    fc.assert(
      fc.property(conversation, (a) => {
        same(mergeConversations(a, a), a);
      }),
    );
  });

  it('keeps a rename on one device and a branch switch on the other', () => {
    const base: ConversationPayload = {
      kind: 'conversation',
      conversation: { id: 'c1', title: 'Trip', createdAt: 1, updatedAt: 5, activeLeafId: 'm1' },
      stamps: { title: [1, 'a'], activeLeafId: [1, 'a'], overrides: [1, 'a'] },
    };
    const renamed: ConversationPayload = { ...base, conversation: { ...base.conversation, title: 'Lisbon' }, stamps: { ...base.stamps, title: [7, 'a'] } };
    const switched: ConversationPayload = {
      ...base,
      conversation: { ...base.conversation, activeLeafId: 'm2' },
      stamps: { ...base.stamps, activeLeafId: [6, 'b'] },
    };
    for (const merged of [mergeConversations(renamed, switched), mergeConversations(switched, renamed)]) {
      expect(merged.conversation.title).toBe('Lisbon');
      expect(merged.conversation.activeLeafId).toBe('m2');
    }
  });

  it('lets a deletion stand only over changes made before it, in either order', () => {
    const live: ConversationPayload = {
      kind: 'conversation',
      conversation: { id: 'c1', title: 'Trip', createdAt: 1, updatedAt: 5 },
      stamps: { title: [3, 'b'], activeLeafId: [3, 'b'], overrides: [1, 'b'] },
    };
    const deleted: ConversationPayload = { ...live, deleted: { stamp: [5, 'a'], known: ['m1'] } };
    expect(isDeleted(mergeConversations(live, deleted))).toBe(true);
    expect(isDeleted(mergeConversations(deleted, live))).toBe(true);
    // B went on (a new leaf after the deletion's time) without seeing it: the conversation stays.
    const wentOn: ConversationPayload = {
      ...live,
      conversation: { ...live.conversation, activeLeafId: 'm2' },
      stamps: { ...live.stamps, activeLeafId: [9, 'b'] },
    };
    expect(isDeleted(mergeConversations(wentOn, deleted))).toBe(false);
    expect(isDeleted(mergeConversations(deleted, wentOn))).toBe(false);
    // Two devices deleting it: what either knew counts.
    const alsoDeleted: ConversationPayload = { ...live, deleted: { stamp: [6, 'b'], known: ['m2'] } };
    expect(mergeConversations(alsoDeleted, deleted).deleted).toEqual({ stamp: [6, 'b'], known: ['m1', 'm2'] });
  });

  it('decides a deletion against the messages a device holds, whatever their order', () => {
    const deleted = { stamp: [5, 'a'] as Stamp, known: ['m1', 'm2'] };
    expect(deletionStands(deleted, ['m2', 'm1'])).toBe(true);
    expect(deletionStands(deleted, [])).toBe(true);
    expect(deletionStands(deleted, ['m1', 'm3'])).toBe(false);
    expect(deletionStands(deleted, ['m3', 'm1'])).toBe(false);
  });
});

describe('message records', () => {
  const message = (pinned: boolean, at: Stamp): MessagePayload => ({
    kind: 'message',
    message: {
      id: 'm1',
      conversationId: 'c1',
      role: 'user',
      kind: 'message',
      content: [{ type: 'text', text: 'hi' }],
      createdAt: 1,
      status: 'complete',
      parentId: null,
      ...(pinned ? { pinned } : {}),
    },
    stamp: at,
  });

  it('take the later pin in either order of arrival', () => {
    fc.assert(
      fc.property(fc.boolean(), stamp, fc.boolean(), stamp, (p1, s1, p2, s2) => {
        fc.pre(s1[0] !== s2[0] || s1[1] !== s2[1]);
        same(mergeMessages(message(p1, s1), message(p2, s2)), mergeMessages(message(p2, s2), message(p1, s1)));
      }),
    );
    expect(mergePayloads(message(true, [2, 'a']), message(false, [4, 'b'])).message.pinned).toBeUndefined();
  });
});

describe('settings records', () => {
  const settings: fc.Arbitrary<SettingsPayload> = fc
    .uniqueArray(fc.tuple(fc.constantFrom('provider', 'systemPrompt', 'contextWindow'), fc.constantFrom('x', 'y', 'z'), stamp), {
      selector: ([field]) => field,
    })
    .map((fields) => ({
      kind: 'settings',
      settings: Object.fromEntries(fields.map(([field, value]) => [field, value])),
      stamps: Object.fromEntries(fields.map(([field, , at]) => [field, at])),
    }));

  it('merge field by field to the same record in either order', () => {
    fc.assert(
      fc.property(settings, settings, (a, b) => {
        for (const field of Object.keys(a.stamps)) {
          const other = b.stamps[field];
          fc.pre(!other || other[0] !== a.stamps[field]![0] || other[1] !== a.stamps[field]![1] || a.settings[field] === b.settings[field]);
        }
        same(mergeSettings(a, b), mergeSettings(b, a));
      }),
    );
  });
});

describe('restamp', () => {
  it('stamps only the fields that changed since the last sync', () => {
    const first = restamp(['title', 'overrides'], { title: 'A', overrides: undefined }, undefined, [1, 'd']);
    const next = restamp(['title', 'overrides'], { title: 'B', overrides: undefined }, first, [2, 'd']);
    expect(next.stamps).toEqual({ title: [2, 'd'], overrides: [1, 'd'] });
  });

  it('keeps a fingerprint of each value, never the value, and still reads the values earlier versions kept', () => {
    const text = 'A long message text that the device already holds once. '.repeat(50);
    const first = restamp(['record'], { record: { text } }, undefined, [1, 'd']);
    expect(JSON.stringify(first.values)).not.toContain('A long message');
    expect(first.values.record.length).toBeLessThan(32);
    expect(restamp(['record'], { record: { text } }, first, [2, 'd']).stamps.record).toEqual([1, 'd']);
    expect(restamp(['record'], { record: { text: `${text}!` } }, first, [2, 'd']).stamps.record).toEqual([2, 'd']);
    // Written by an earlier version: the canonical value itself.
    const earlier = { values: { record: canonical({ text }) }, stamps: { record: [1, 'd'] as Stamp } };
    expect(restamp(['record'], { record: { text } }, earlier, [2, 'd']).stamps.record).toEqual([1, 'd']);
    expect(restamp(['record'], { record: { text: 'changed' } }, earlier, [2, 'd']).stamps.record).toEqual([2, 'd']);
  });
});

describe('readPayload', () => {
  it('refuses what another version or a hostile writer could send', () => {
    expect(readPayload(null)).toBeUndefined();
    expect(readPayload({ kind: 'message', message: { id: 'm1' }, stamp: [1, 'a'] })).toBeUndefined();
    expect(readPayload({ kind: 'conversation', conversation: { id: 'c', title: 't', createdAt: 1, updatedAt: 1 }, stamps: {} })).toBeUndefined();
    expect(
      readPayload({ kind: 'file', file: { id: 'f', conversationId: 'c', name: 'a.png', mediaType: 'image/png', bytes: 1, createdAt: 1 }, chunks: [1] }),
    ).toBeUndefined();
    expect(readPayload({ kind: 'settings', settings: {}, stamps: { a: ['x', 1] } })).toBeUndefined();
    expect(readPayload({ kind: 'unknown' })).toBeUndefined();
  });

  it('carries an answer’s thinking time and reasoning tokens, and leaves out bad ones while keeping the message', () => {
    const { seq: _seq, ...message } = thoughtAnswer();
    expect(readPayload({ kind: 'message', message, stamp: [1, 'a'] })).toEqual({ kind: 'message', message, stamp: [1, 'a'] });
    const bad = readPayload({
      kind: 'message',
      message: { ...message, thinkingMs: 'soon', usage: { ...message.usage, reasoningTokens: 91 } },
      stamp: [1, 'a'],
    }) as MessagePayload;
    expect(bad.message).not.toHaveProperty('thinkingMs');
    expect(bad.message.usage).toEqual({ inputTokens: 10, outputTokens: 90, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(bad.message.content).toEqual(message.content);
  });

  it('reads back each kind the app writes', () => {
    const stamps = { title: [1, 'a'], activeLeafId: [1, 'a'], overrides: [1, 'a'] };
    const read = readPayload({
      kind: 'conversation',
      conversation: { id: 'c', title: 't', createdAt: 1, updatedAt: 2 },
      stamps,
      deleted: { stamp: [3, 'a'], known: ['m'] },
    });
    expect(read).toEqual({
      kind: 'conversation',
      conversation: { id: 'c', title: 't', createdAt: 1, updatedAt: 2 },
      stamps,
      deleted: { stamp: [3, 'a'], known: ['m'] },
    });
  });
});
