import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  branchCount,
  branchMessages,
  buildTree,
  newestLeafUnder,
  pathTo,
  resolveLeaf,
  turnStartOf,
  versionStep,
  versionsOf,
  withExplicitParents,
  type StoredMessage,
} from '../../src/core';

let seq = 0;
function msg(id: string, role: 'user' | 'assistant', parentId: string | null | undefined, extra: Partial<StoredMessage> = {}): StoredMessage {
  const m: StoredMessage = {
    id,
    conversationId: 'c',
    seq: seq++,
    role,
    kind: 'message',
    content: [{ type: 'text', text: id }],
    createdAt: 0,
    status: 'complete',
    ...extra,
  };
  if (parentId !== undefined) m.parentId = parentId;
  return m;
}

const ids = (list: readonly StoredMessage[]) => list.map((m) => m.id);

/** u1 → a1 → u2 → a2, with a2' (regenerated) and u2' (edited) → a3. */
function branched(): StoredMessage[] {
  seq = 0;
  return [
    msg('u1', 'user', null),
    msg('a1', 'assistant', 'u1'),
    msg('u2', 'user', 'a1'),
    msg('a2', 'assistant', 'u2'),
    msg('a2b', 'assistant', 'u2'),
    msg('u2b', 'user', 'a1'),
    msg('a3', 'assistant', 'u2b'),
  ];
}

describe('conversation tree', () => {
  it('shows the branch that ends at the leaf, and the newest branch when none is named', () => {
    const tree = buildTree(branched());
    expect(ids(branchMessages(tree, 'a2'))).toEqual(['u1', 'a1', 'u2', 'a2']);
    expect(ids(branchMessages(tree, 'a2b'))).toEqual(['u1', 'a1', 'u2', 'a2b']);
    expect(ids(branchMessages(tree, undefined))).toEqual(['u1', 'a1', 'u2b', 'a3']);
    expect(ids(branchMessages(tree, 'gone'))).toEqual(['u1', 'a1', 'u2b', 'a3']);
    expect(branchCount(tree)).toBe(3);
  });

  it('counts the versions of a message and steps to the newest leaf of the next one', () => {
    const tree = buildTree(branched());
    expect(versionsOf(tree, 'u2')).toMatchObject({ index: 0, count: 2 });
    expect(versionsOf(tree, 'u2b')).toMatchObject({ index: 1, count: 2 });
    expect(versionsOf(tree, 'a2b')).toMatchObject({ index: 1, count: 2 });
    expect(versionsOf(tree, 'a1')).toMatchObject({ index: 0, count: 1 });
    expect(versionStep(tree, 'u2', 1)).toBe('a3');
    // Stepping back to the first version shows its most recent answer, the regenerated one.
    expect(versionStep(tree, 'u2b', -1)).toBe('a2b');
    expect(versionStep(tree, 'u2b', 1)).toBeUndefined();
    expect(newestLeafUnder(tree, 'u2')).toBe('a2b');
  });

  it('reads records written before branches as one line in seq order', () => {
    seq = 0;
    const legacy = [msg('x1', 'user', undefined), msg('x2', 'assistant', undefined), msg('x3', 'user', undefined)];
    const tree = buildTree(legacy);
    expect(ids(branchMessages(tree, undefined))).toEqual(['x1', 'x2', 'x3']);
    expect(withExplicitParents(legacy).map((m) => m.parentId)).toEqual([null, 'x1', 'x2']);
  });

  it('repairs parents that are missing, later, summaries or the message itself', () => {
    seq = 0;
    const list = [
      msg('r1', 'user', null),
      msg('r2', 'assistant', 'nowhere'),
      msg('r3', 'user', 'r4'),
      msg('r4', 'assistant', 'r4'),
      msg('s', 'assistant', 'r4', { kind: 'summary', covers: ['r1'] }),
      msg('r5', 'user', 's'),
    ];
    const tree = buildTree(list);
    expect(ids(pathTo(tree, 'r5'))).toEqual(['r1', 'r2', 'r3', 'r4', 'r5']);
  });

  it('gives each branch only the summaries of messages on it', () => {
    seq = 0;
    const list = [
      msg('u1', 'user', null),
      msg('a1', 'assistant', 'u1'),
      msg('u2', 'user', 'a1'),
      msg('a2', 'assistant', 'u2'),
      msg('common', 'assistant', 'a2', { kind: 'summary', covers: ['u1', 'a1'] }),
      msg('u3', 'user', 'a2'),
      msg('a3', 'assistant', 'u3'),
      msg('onlyA', 'assistant', 'a3', { kind: 'summary', covers: ['u1', 'a1', 'u2', 'a2'] }),
      msg('u2b', 'user', 'a1'),
    ];
    const tree = buildTree(list);
    expect(ids(branchMessages(tree, 'a3'))).toEqual(['u1', 'a1', 'u2', 'a2', 'common', 'u3', 'a3', 'onlyA']);
    expect(ids(branchMessages(tree, 'u2b'))).toEqual(['u1', 'a1', 'common', 'u2b']);
    expect(resolveLeaf(tree, 'onlyA')).toBe('a3');
  });

  it('redoes an answer reached through tool calls from the user message it answers', () => {
    seq = 0;
    const list = [
      msg('u1', 'user', null),
      msg('call', 'assistant', 'u1'),
      msg('results', 'user', 'call', { content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }] }),
      msg('final', 'assistant', 'results'),
    ];
    const tree = buildTree(list);
    expect(turnStartOf(tree, 'final')).toBe('u1');
    expect(turnStartOf(tree, 'call')).toBe('u1');
    expect(turnStartOf(tree, 'u1')).toBeNull();
  });

  it('never loops and keeps every message on some branch, whatever the stored parents say', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.option(fc.nat(30), { nil: undefined }), fc.boolean(), fc.nat(30)), { maxLength: 30 }), (specs) => {
        const list: StoredMessage[] = specs.map(([parent, isNull, order], i) => ({
          id: `m${i}`,
          conversationId: 'c',
          seq: order,
          role: i % 2 ? 'assistant' : 'user',
          kind: 'message',
          content: [],
          createdAt: 0,
          status: 'complete',
          parentId: isNull ? null : parent === undefined ? undefined : `m${parent}`,
        }));
        const tree = buildTree(list);
        const reached = new Set<string>();
        for (const m of list) {
          const path = pathTo(tree, m.id);
          expect(path.at(-1)?.id).toBe(m.id);
          for (let i = 1; i < path.length; i++) expect(path[i]!.seq).toBeGreaterThanOrEqual(path[i - 1]!.seq);
          const leaf = newestLeafUnder(tree, m.id)!;
          expect(ids(pathTo(tree, leaf))).toContain(m.id);
          for (const p of pathTo(tree, leaf)) reached.add(p.id);
        }
        expect(reached.size).toBe(new Set(list.map((m) => m.id)).size);
      }),
    );
  });
});
