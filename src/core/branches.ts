/**
 * A conversation is a tree: each message follows a parent, and editing a message or
 * regenerating an answer adds a sibling instead of changing what was written. One branch
 * (root to leaf) is shown and planned at a time; nothing here changes a stored record.
 *
 * Records are outside input, so parents are read defensively: a parent that is missing, is
 * a summary or was written after its child is replaced by the message before it in `seq`
 * order, which is also how records written before branches existed are read. Since a
 * parent is always earlier in `seq`, no reading of any records can loop.
 */
import type { StoredMessage } from './conversation';

/** One conversation's messages as a tree. Built in O(n log n) at worst, O(n) for records in `seq` order (as storage returns them). */
export interface ConversationTree {
  /** Every message by id, summaries included. */
  readonly byId: ReadonlyMap<string, StoredMessage>;
  /** The message each message follows, after repair (see the module comment); null for a first message. */
  readonly parentOf: ReadonlyMap<string, string | null>;
  /** The messages (not summaries) that follow each message, or that start the conversation (key null), in `seq` order. */
  readonly childrenOf: ReadonlyMap<string | null, readonly StoredMessage[]>;
  /** Summaries in `seq` order: never a parent, they belong to the branches holding every message they cover. */
  readonly summaries: readonly StoredMessage[];
  /** The newest message that is not a summary (the highest `seq`): the end of the most recent branch. */
  readonly newest: StoredMessage | undefined;
}

/** Where a message stands among its siblings (the versions of it). */
export interface Versions {
  /** 0-based position of the message among its siblings, in the order they were written. */
  index: number;
  count: number;
  /** The siblings, the message itself included, in `seq` order. */
  siblings: readonly StoredMessage[];
}

function inSeqOrder(messages: readonly StoredMessage[]): readonly StoredMessage[] {
  for (let i = 1; i < messages.length; i++) {
    if (messages[i]!.seq < messages[i - 1]!.seq) return [...messages].sort((a, b) => a.seq - b.seq);
  }
  return messages;
}

/** The tree of one conversation's stored messages (any order; `seq` orders them). */
export function buildTree(messages: readonly StoredMessage[]): ConversationTree {
  const byId = new Map<string, StoredMessage>();
  const parentOf = new Map<string, string | null>();
  const childrenOf = new Map<string | null, StoredMessage[]>();
  const summaries: StoredMessage[] = [];
  // Messages already read (every one has a lower or equal seq): a parent must be one of them.
  const seen = new Set<string>();
  let previous: StoredMessage | undefined;
  for (const m of inSeqOrder(messages)) {
    byId.set(m.id, m);
    const stated = m.parentId;
    const parent = stated === null ? null : typeof stated === 'string' && seen.has(stated) && stated !== m.id ? stated : (previous?.id ?? null);
    parentOf.set(m.id, parent);
    if (m.kind === 'summary') {
      summaries.push(m);
      continue;
    }
    let siblings = childrenOf.get(parent);
    if (!siblings) childrenOf.set(parent, (siblings = []));
    siblings.push(m);
    seen.add(m.id);
    previous = m;
  }
  return { byId, parentOf, childrenOf, summaries, newest: previous };
}

/** The messages from the first one to `id`, in order (summaries left out); empty when `id` is not in the tree. */
export function pathTo(tree: ConversationTree, id: string): StoredMessage[] {
  const path: StoredMessage[] = [];
  for (let at: string | null | undefined = id; at != null; at = tree.parentOf.get(at)) {
    const message = tree.byId.get(at);
    if (!message) break;
    if (message.kind !== 'summary') path.push(message);
  }
  return path.reverse();
}

/**
 * The most recent end of a branch through `id`: its newest descendant, which is always a
 * leaf (a child is written after its parent). `id` null: the newest leaf of the conversation.
 */
export function newestLeafUnder(tree: ConversationTree, id: string | null): string | undefined {
  if (id === null) return tree.newest?.id;
  const start = tree.byId.get(id);
  if (!start) return undefined;
  if (start.kind === 'summary') return newestLeafUnder(tree, tree.parentOf.get(id) ?? null);
  let best = start;
  const stack: StoredMessage[] = [start];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.seq > best.seq) best = node;
    const children = tree.childrenOf.get(node.id);
    if (children) stack.push(...children);
  }
  return best.id;
}

/** The leaf the branch `leafId` names, or the newest leaf when it names nothing in the tree. */
export function resolveLeaf(tree: ConversationTree, leafId: string | null | undefined): string | undefined {
  const named = leafId == null ? undefined : tree.byId.get(leafId);
  if (!named) return tree.newest?.id;
  return named.kind === 'summary' ? newestLeafUnder(tree, tree.parentOf.get(named.id) ?? null) : named.id;
}

/**
 * The branch ending at `leafId` as the window plans and the transcript shows it: the path
 * from the first message to the leaf, with the summaries that belong to it (every message a
 * summary covers is on the path, so a summary of a shared beginning serves every branch
 * that shares it, and no branch is sent a summary of another's messages), in `seq` order.
 * An unknown `leafId` shows the newest branch. O(path + summaries' covers).
 */
export function branchMessages(tree: ConversationTree, leafId: string | null | undefined): StoredMessage[] {
  const leaf = resolveLeaf(tree, leafId);
  const path = leaf === undefined ? [] : pathTo(tree, leaf);
  if (tree.summaries.length === 0) return path;
  const onPath = new Set(path.map((m) => m.id));
  const belonging = tree.summaries.filter((s) => {
    const covers = Array.isArray(s.covers) ? s.covers : [];
    if (covers.length > 0) return covers.every((id) => onPath.has(id));
    const parent = tree.parentOf.get(s.id);
    return parent == null ? path.length > 0 : onPath.has(parent);
  });
  if (belonging.length === 0) return path;
  const out: StoredMessage[] = [];
  let i = 0;
  for (const m of path) {
    while (i < belonging.length && belonging[i]!.seq < m.seq) out.push(belonging[i++]!);
    out.push(m);
  }
  while (i < belonging.length) out.push(belonging[i++]!);
  return out;
}

/** The versions of message `id`: the messages that follow the same parent. Undefined for a summary or an unknown id. */
export function versionsOf(tree: ConversationTree, id: string): Versions | undefined {
  const message = tree.byId.get(id);
  if (!message || message.kind === 'summary') return undefined;
  const siblings = tree.childrenOf.get(tree.parentOf.get(id) ?? null) ?? [message];
  return { index: Math.max(0, siblings.indexOf(message)), count: siblings.length, siblings };
}

/**
 * The leaf to show after stepping from message `id` to its previous (`-1`) or next (`1`)
 * version: that version's most recent leaf. Undefined at either end.
 */
export function versionStep(tree: ConversationTree, id: string, step: -1 | 1): string | undefined {
  const versions = versionsOf(tree, id);
  const target = versions?.siblings[versions.index + step];
  return target ? newestLeafUnder(tree, target.id) : undefined;
}

/** How many branches the conversation has: its leaves. */
export function branchCount(tree: ConversationTree): number {
  let leaves = 0;
  for (const m of tree.byId.values()) if (m.kind !== 'summary' && !tree.childrenOf.has(m.id)) leaves++;
  return leaves;
}

/** A user message the user wrote, as opposed to one carrying tool results back to the model. */
export function isUserTurn(message: Pick<StoredMessage, 'role' | 'content' | 'kind'>): boolean {
  return message.role === 'user' && message.kind !== 'summary' && !message.content.some((block) => block.type === 'tool_result');
}

/**
 * Where a new version of the answer `id` starts: the user message its turn answers (an
 * answer reached through tool calls is redone from there). Null when the answer follows no
 * user message; undefined for an unknown id.
 */
export function turnStartOf(tree: ConversationTree, id: string): string | null | undefined {
  if (!tree.byId.has(id)) return undefined;
  for (let at = tree.parentOf.get(id) ?? null; at !== null; at = tree.parentOf.get(at) ?? null) {
    const message = tree.byId.get(at);
    if (message && isUserTurn(message)) return at;
  }
  return null;
}

/**
 * The records with every parent written out as `buildTree` reads them (the repair rules
 * above made explicit), for storing: records already right are returned as they are.
 */
export function withExplicitParents(messages: readonly StoredMessage[]): StoredMessage[] {
  const tree = buildTree(messages);
  return messages.map((m) => {
    const parent = tree.parentOf.get(m.id) ?? null;
    return m.parentId === parent ? m : { ...m, parentId: parent };
  });
}
