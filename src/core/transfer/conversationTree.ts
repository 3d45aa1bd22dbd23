/**
 * ChatGPT (and Claude, when it records parents) store a conversation as a tree: editing a
 * prompt or regenerating an answer adds a sibling branch. Windowpane stores linear
 * conversations, so a tree is imported as one conversation per root-to-leaf path: the
 * path the user last saw first, then every other branch in the order it was created.
 */
import { MAX_IMPORT_MESSAGES, type ConversationRecords } from './exportFormat';
import { MalformedImport } from './readJson';

export interface TreeNode {
  id: string;
  /** Parent node id; null (or an id not in the tree) for a root. */
  parent: string | null;
  /** Child ids in creation order; ids not in the tree are ignored. */
  children: readonly string[];
}

/**
 * Every root-to-leaf path of the tree, as node ids from root to leaf. The first path ends
 * at `currentId` when it is in the tree (it need not be a leaf), else at the newest leaf
 * (following the last child from the first root). The other paths follow in depth-first,
 * creation order. Cost: O(nodes + total path length), and the total is counted before any
 * path is built: past `maxMessages` (branches repeat their shared messages, so a comb-shaped
 * tree grows quadratically) it throws `MalformedImport` instead. Also throws for a tree
 * with a cycle or no root; never recurses, so deep trees are safe.
 */
export function treePaths(
  nodes: ReadonlyMap<string, TreeNode>,
  currentId: string | null | undefined,
  path: string,
  maxMessages: number = MAX_IMPORT_MESSAGES,
): string[][] {
  if (nodes.size === 0) return [];
  const parentOf = (node: TreeNode): TreeNode | undefined => (node.parent === null ? undefined : nodes.get(node.parent));
  const childrenOf = (node: TreeNode): TreeNode[] => {
    const out: TreeNode[] = [];
    for (const id of node.children) {
      const child = nodes.get(id);
      // A child whose own parent pointer disagrees belongs elsewhere; following it twice would duplicate it.
      if (child && child.parent === node.id) out.push(child);
    }
    return out;
  };

  const roots = [...nodes.values()].filter((node) => parentOf(node) === undefined);
  if (roots.length === 0) throw new MalformedImport(path, `${path} has no starting message (its messages form a loop)`);

  const pathTo = (leaf: TreeNode): string[] => {
    const ids: string[] = [];
    for (let node: TreeNode | undefined = leaf; node; node = parentOf(node)) {
      ids.push(node.id);
      if (ids.length > nodes.size) throw new MalformedImport(path, `${path} has messages that form a loop`);
    }
    return ids.reverse();
  };

  // Depth-first over every root, children in creation order; a visited set guards against shared or cyclic children.
  const leaves: TreeNode[] = [];
  const visited = new Set<string>();
  const stack: [TreeNode, number][] = [...roots].reverse().map((root) => [root, 1]);
  let expanded = 0;
  while (stack.length > 0) {
    const [node, depth] = stack.pop()!;
    if (visited.has(node.id)) continue;
    visited.add(node.id);
    const children = childrenOf(node).filter((child) => !visited.has(child.id));
    if (children.length === 0) {
      leaves.push(node);
      expanded += depth;
      if (expanded > maxMessages) {
        throw new MalformedImport(
          path,
          `${path} has so many branches that importing each as a conversation would make more than ${maxMessages.toLocaleString('en-US')} messages`,
        );
      }
    }
    for (let i = children.length - 1; i >= 0; i--) stack.push([children[i]!, depth + 1]);
  }

  let current = currentId == null ? undefined : nodes.get(currentId);
  if (current === undefined) {
    const seen = new Set<string>();
    current = roots[0]!;
    for (;;) {
      seen.add(current.id);
      const next: TreeNode | undefined = childrenOf(current)
        .filter((child) => !seen.has(child.id))
        .at(-1);
      if (next === undefined) break;
      current = next;
    }
  }
  const paths = [pathTo(current)];
  for (const leaf of leaves) if (leaf !== current) paths.push(pathTo(leaf));
  return paths;
}

interface TrieNode {
  children: Map<string, TrieNode>;
  ends: boolean;
}

/**
 * Which of `sequences` (visible message ids per path, the current path first) are worth a
 * conversation of their own: the first always; any other only when it is non-empty, not
 * equal to an earlier one and not a proper prefix of another — a branch that only differs
 * by hidden messages shows nothing new. O(total length), using a trie.
 */
export function distinctSequences(sequences: readonly (readonly string[])[]): boolean[] {
  const root: TrieNode = { children: new Map(), ends: false };
  const endOf = sequences.map((sequence) => {
    let node = root;
    for (const id of sequence) {
      let next = node.children.get(id);
      if (!next) node.children.set(id, (next = { children: new Map(), ends: false }));
      node = next;
    }
    return node;
  });
  return sequences.map((sequence, i) => {
    const end = endOf[i]!;
    if (i === 0) {
      end.ends = true;
      return true;
    }
    if (sequence.length === 0 || end.ends || end.children.size > 0) return false;
    end.ends = true;
    return true;
  });
}

/**
 * Adds the messages of one source conversation's records to the running total of an
 * import and throws `MalformedImport` once it passes `maxMessages`, so a file of many large
 * conversations is refused after at most one more conversation has been built.
 */
export function countImported(total: number, records: readonly ConversationRecords[], path: string, maxMessages: number = MAX_IMPORT_MESSAGES): number {
  const next = records.reduce((sum, entry) => sum + entry.messages.length, total);
  if (next > maxMessages) {
    throw new MalformedImport(
      path,
      `the file holds more than ${maxMessages.toLocaleString('en-US')} messages once every branch is its own conversation, the most one import takes`,
    );
  }
  return next;
}
