/**
 * ChatGPT (and Claude, when it records parents) store a conversation as a tree: editing a
 * prompt or regenerating an answer adds a sibling branch. Windowpane stores trees too, so
 * a tree is imported as one conversation holding every branch: each message the transcript
 * shows follows its nearest shown ancestor (nodes left out — system prompts, internal
 * state — are skipped and their children follow the node above them), and messages are
 * numbered parents first, in the order they were written.
 */
export interface TreeNode {
  id: string;
  /** Parent node id; null (or an id not in the tree, or the node's own) for a root. */
  parent: string | null;
  /** Child ids in creation order: orders siblings. A node whose parent does not list it comes after those listed. */
  children: readonly string[];
}

/** A shown node and the shown node it follows. */
export interface ShownNode {
  id: string;
  /** The nearest shown ancestor; null for a first message. */
  parent: string | null;
}

/** The tree as imported: shown nodes only. */
export interface ShownTree {
  /** Shown nodes in the order to number them: every parent before its children, else by time, then depth-first in creation order. */
  nodes: ShownNode[];
  /** The shown node nearest `currentId` (itself or its nearest shown ancestor); undefined when there is none. */
  current: string | undefined;
  /** How many nodes were reached from a root; the others hang off a loop. */
  reached: number;
}

/**
 * The shown part of a tree: which nodes are shown (`shown`), when each was written
 * (`timeOf`, epoch ms; undefined when unknown: taken as its parent's) and the node the user
 * last saw (`currentId`). Nodes reached from no root (parts of a loop) are left out and
 * counted in `reached`. Never recurses, so deep trees are safe; O(n log n).
 */
export function shownTree(
  nodes: ReadonlyMap<string, TreeNode>,
  shown: (id: string) => boolean,
  timeOf: (id: string) => number | undefined,
  currentId: string | null | undefined,
): ShownTree {
  // Children from the parent pointers (each node has one parent, so nothing is reached twice), ordered as the parent lists them.
  const isRoot = (node: TreeNode) => node.parent === null || node.parent === node.id || !nodes.has(node.parent);
  const childrenOf = new Map<string, TreeNode[]>();
  const roots: TreeNode[] = [];
  for (const node of nodes.values()) {
    if (isRoot(node)) roots.push(node);
    else {
      let list = childrenOf.get(node.parent!);
      if (!list) childrenOf.set(node.parent!, (list = []));
      list.push(node);
    }
  }
  for (const [parentId, list] of childrenOf) {
    const listed = new Map<string, number>();
    nodes.get(parentId)!.children.forEach((id, i) => {
      if (!listed.has(id)) listed.set(id, i);
    });
    const rank = (node: TreeNode) => listed.get(node.id) ?? Number.MAX_SAFE_INTEGER;
    list.sort((a, b) => rank(a) - rank(b)); // stable: unlisted children keep their order
  }

  // Depth-first, children in creation order, carrying the nearest shown ancestor and its time.
  interface Visit {
    node: TreeNode;
    parent: string | null;
    time: number;
  }
  const order: Array<ShownNode & { time: number; index: number }> = [];
  const shownAncestor = new Map<string, string | null>();
  const stack: Visit[] = roots.reverse().map((node) => ({ node, parent: null, time: -Infinity }));
  let reached = 0;
  while (stack.length > 0) {
    const { node, parent, time } = stack.pop()!;
    reached++;
    let next = parent;
    let nextTime = time;
    if (shown(node.id)) {
      // A child is never taken as older than its parent, so sorting by time keeps parents first.
      nextTime = Math.max(time, timeOf(node.id) ?? time);
      order.push({ id: node.id, parent, time: nextTime, index: order.length });
      next = node.id;
    }
    shownAncestor.set(node.id, next);
    const children = childrenOf.get(node.id) ?? [];
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, parent: next, time: nextTime });
  }
  order.sort((a, b) => (a.time < b.time ? -1 : a.time > b.time ? 1 : a.index - b.index));

  const current = currentId == null ? undefined : (shownAncestor.get(currentId) ?? undefined);
  return { nodes: order.map(({ id, parent }) => ({ id, parent })), current, reached };
}
