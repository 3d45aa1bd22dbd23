import { describe, expect, it } from 'vitest';
import { distinctSequences, treePaths, type TreeNode } from '../../../src/core/transfer/conversationTree';
import { MalformedImport } from '../../../src/core/transfer/readJson';

function tree(edges: Record<string, string | null>): Map<string, TreeNode> {
  const nodes = new Map<string, TreeNode>();
  for (const [id, parent] of Object.entries(edges)) nodes.set(id, { id, parent, children: [] });
  for (const node of nodes.values()) if (node.parent) (nodes.get(node.parent)?.children as string[] | undefined)?.push(node.id);
  return nodes;
}

describe('treePaths', () => {
  const nodes = tree({ r: null, a: 'r', b: 'a', c: 'a', d: 'c', e: 'r' });

  it('puts the path to the current node first, then every other leaf depth-first', () => {
    expect(treePaths(nodes, 'd', 'm')).toEqual([
      ['r', 'a', 'c', 'd'],
      ['r', 'a', 'b'],
      ['r', 'e'],
    ]);
  });

  it('follows the last child when there is no current node', () => {
    expect(treePaths(nodes, undefined, 'm')[0]).toEqual(['r', 'e']);
    expect(treePaths(nodes, 'not-a-node', 'm')[0]).toEqual(['r', 'e']);
  });

  it('treats an inner current node as the end of the current path', () => {
    expect(treePaths(nodes, 'a', 'm')).toEqual([
      ['r', 'a'],
      ['r', 'a', 'b'],
      ['r', 'a', 'c', 'd'],
      ['r', 'e'],
    ]);
  });

  it('handles a chain far deeper than the call stack', () => {
    const edges: Record<string, string | null> = { n0: null };
    for (let i = 1; i < 50_000; i++) edges[`n${i}`] = `n${i - 1}`;
    const paths = treePaths(tree(edges), 'n49999', 'm');
    expect(paths).toHaveLength(1);
    expect(paths[0]).toHaveLength(50_000);
  });

  it('reports a loop with no root as malformed', () => {
    expect(() => treePaths(tree({ a: 'b', b: 'a' }), 'a', 'mapping')).toThrow(MalformedImport);
  });
});

describe('distinctSequences', () => {
  it('keeps the first, drops empty, repeated and prefix-only sequences', () => {
    expect(distinctSequences([['a', 'b'], ['a'], ['a', 'b'], [], ['a', 'c'], ['a', 'c', 'd'], ['x']])).toEqual([true, false, false, false, false, true, true]);
  });
});
