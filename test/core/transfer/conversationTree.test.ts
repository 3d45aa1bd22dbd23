import { describe, expect, it } from 'vitest';
import { shownTree, type TreeNode } from '../../../src/core/transfer/conversationTree';

/** Nodes from `id → parent`, each parent listing its children in the order given. */
function tree(edges: Record<string, string | null>): Map<string, TreeNode> {
  const nodes = new Map<string, TreeNode>();
  for (const [id, parent] of Object.entries(edges)) nodes.set(id, { id, parent, children: [] });
  for (const node of nodes.values()) if (node.parent) (nodes.get(node.parent)?.children as string[] | undefined)?.push(node.id);
  return nodes;
}

const all = () => true;
const noTimes = () => undefined;
const edges = (result: ReturnType<typeof shownTree>) => result.nodes.map(({ id, parent }) => `${parent ?? '-'}>${id}`);

describe('shownTree', () => {
  const nodes = tree({ r: null, a: 'r', b: 'a', c: 'a', d: 'c', e: 'r' });

  it('numbers parents first, depth-first in creation order when no times are known', () => {
    expect(edges(shownTree(nodes, all, noTimes, 'd'))).toEqual(['->r', 'r>a', 'a>b', 'a>c', 'c>d', 'r>e']);
  });

  it('orders by time where known, never a child before its parent', () => {
    const times: Record<string, number> = { r: 1, a: 2, b: 9, c: 3, d: 4, e: 5 };
    expect(shownTree(nodes, all, (id) => times[id], undefined).nodes.map((n) => n.id)).toEqual(['r', 'a', 'c', 'd', 'e', 'b']);
    // A child stamped before its parent still comes after it.
    const skewed: Record<string, number> = { r: 10, a: 1, b: 2, c: 3, d: 4, e: 11 };
    expect(shownTree(nodes, all, (id) => skewed[id], undefined).nodes.map((n) => n.id)).toEqual(['r', 'a', 'b', 'c', 'd', 'e']);
  });

  it('skips hidden nodes, their children following the nearest shown ancestor', () => {
    const hidden = new Set(['r', 'c']);
    const result = shownTree(nodes, (id) => !hidden.has(id), noTimes, 'c');
    expect(edges(result)).toEqual(['->a', 'a>b', 'a>d', '->e']);
    // The current node is hidden: the shown node nearest it stands in.
    expect(result.current).toBe('a');
    expect(result.reached).toBe(6);
  });

  it('names no current node when it is unknown or has no shown ancestor', () => {
    expect(shownTree(nodes, all, noTimes, 'not-a-node').current).toBeUndefined();
    expect(shownTree(nodes, all, noTimes, null).current).toBeUndefined();
    expect(shownTree(nodes, (id) => id !== 'r', noTimes, 'r').current).toBeUndefined();
  });

  it('orders siblings as the parent lists them, unlisted children after, and treats a missing or own parent as a root', () => {
    const listed = new Map<string, TreeNode>([
      ['r', { id: 'r', parent: null, children: ['y', 'x'] }],
      ['x', { id: 'x', parent: 'r', children: [] }],
      ['z', { id: 'z', parent: 'r', children: [] }],
      ['y', { id: 'y', parent: 'r', children: [] }],
      ['o', { id: 'o', parent: 'gone', children: [] }],
      ['s', { id: 's', parent: 's', children: [] }],
    ]);
    expect(edges(shownTree(listed, all, noTimes, undefined))).toEqual(['->r', 'r>y', 'r>x', 'r>z', '->o', '->s']);
  });

  it('handles a chain far deeper than the call stack', () => {
    const chain: Record<string, string | null> = { n0: null };
    for (let i = 1; i < 50_000; i++) chain[`n${i}`] = `n${i - 1}`;
    const result = shownTree(tree(chain), all, noTimes, 'n49999');
    expect(result.nodes).toHaveLength(50_000);
    expect(result.nodes[49_999]).toEqual({ id: 'n49999', parent: 'n49998' });
    expect(result.current).toBe('n49999');
  });

  it('reaches nothing in a loop: a loop with no root reaches no node, one beside a root is left out', () => {
    expect(shownTree(tree({ a: 'b', b: 'a' }), all, noTimes, 'a')).toEqual({ nodes: [], current: undefined, reached: 0 });
    const beside = shownTree(tree({ r: null, a: 'b', b: 'a' }), all, noTimes, 'a');
    expect(edges(beside)).toEqual(['->r']);
    expect(beside.reached).toBe(1);
  });
});
