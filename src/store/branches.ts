/**
 * Which branch of each conversation this tab shows, and moving between branches. Every
 * request is planned from the branch shown (root to leaf); the other branches stay stored.
 * The leaf is this tab's own (`branchLeaf`), so two tabs can work on two branches of one
 * conversation; the conversation record remembers the last one for other tabs and later
 * visits, and this tab's sessionStorage for its own reload (which may come before the
 * record is written).
 */
import type { ConversationTree, StoredMessage } from '../core';
import { branchMessages, buildTree, newestLeafUnder, resolveLeaf, versionStep } from '../core';
import type { Runtime } from './runtime';
import type { AppState } from './state';

// Pure memos keyed by the messages array (stored lists are replaced, never mutated), so the
// screen, the planner and the send loop share one tree and one branch per list and leaf.
const trees = new WeakMap<readonly StoredMessage[], ConversationTree>();
const branches = new WeakMap<ConversationTree, Map<string, StoredMessage[]>>();

/** The tree of one conversation's messages. */
export function treeOf(messages: readonly StoredMessage[]): ConversationTree {
  let tree = trees.get(messages);
  if (!tree) trees.set(messages, (tree = buildTree(messages)));
  return tree;
}

/** The messages of the branch ending at `leafId` (the newest branch when it names none), summaries that belong to it included. */
export function branchOf(tree: ConversationTree, leafId: string | undefined): StoredMessage[] {
  let byLeaf = branches.get(tree);
  if (!byLeaf) branches.set(tree, (byLeaf = new Map()));
  const key = leafId ?? '';
  let branch = byLeaf.get(key);
  if (!branch) byLeaf.set(key, (branch = branchMessages(tree, leafId)));
  return branch;
}

/** The leaf this tab shows for a conversation: its own choice, else the one stored with the conversation. */
export function leafOf(state: Pick<AppState, 'branchLeaf' | 'conversations'>, conversationId: string): string | undefined {
  return state.branchLeaf[conversationId] ?? state.conversations.find((c) => c.id === conversationId)?.activeLeafId;
}

/** The branch of a conversation this tab shows: what the next request is planned from. */
export function shownBranch(state: Pick<AppState, 'branchLeaf' | 'conversations' | 'messages'>, conversationId: string | null): StoredMessage[] {
  if (!conversationId) return [];
  const list = state.messages[conversationId] ?? [];
  return branchOf(treeOf(list), leafOf(state, conversationId));
}

/** The last message of the branch shown: what a new message follows. Null for an empty conversation. */
export function shownLeaf(state: Pick<AppState, 'branchLeaf' | 'conversations' | 'messages'>, conversationId: string): string | null {
  const list = state.messages[conversationId] ?? [];
  return resolveLeaf(treeOf(list), leafOf(state, conversationId)) ?? null;
}

/** Moves this tab to the branch ending at `leafId` (no write to storage): while a turn adds to it. */
export function followLeaf(rt: Runtime, conversationId: string, leafId: string): void {
  if (rt.store.getState().branchLeaf[conversationId] === leafId) return;
  rt.store.setState((s) => ({ branchLeaf: { ...s.branchLeaf, [conversationId]: leafId } }));
  rememberTabLeaf(rt, conversationId, leafId);
}

/** Shows the branch ending at `leafId` and remembers it with the conversation, so a reload reopens it. */
export async function showBranch(rt: Runtime, conversationId: string, leafId: string): Promise<void> {
  followLeaf(rt, conversationId, leafId);
  rt.store.setState((s) => ({ conversations: s.conversations.map((c) => (c.id === conversationId ? { ...c, activeLeafId: leafId } : c)) }));
  if (rt.memoryOnly.has(conversationId)) return;
  try {
    await rt.repositories.conversations.setActiveLeaf(conversationId, leafId);
  } catch (error) {
    rt.notifier.reportError(error, 'remember the branch shown');
  }
}

/** Shows the previous (`-1`) or next (`1`) version of message `messageId`, down to that version's most recent leaf. */
export async function switchVersion(rt: Runtime, messageId: string, step: -1 | 1): Promise<void> {
  const state = rt.store.getState();
  const conversationId = state.activeId;
  // A turn adds to the branch shown: switching under it would put its answer on another.
  if (!conversationId || state.sendingId === conversationId) return;
  const leaf = versionStep(treeOf(state.messages[conversationId] ?? []), messageId, step);
  if (leaf) await showBranch(rt, conversationId, leaf);
}

/** Shows the branch holding message `messageId` (a search hit), down to its most recent leaf. */
export async function showBranchHolding(rt: Runtime, conversationId: string, messageId: string): Promise<void> {
  const leaf = newestLeafUnder(treeOf(rt.store.getState().messages[conversationId] ?? []), messageId);
  if (leaf && leaf !== shownLeaf(rt.store.getState(), conversationId)) await showBranch(rt, conversationId, leaf);
}

/**
 * Fixes the branch this tab shows when a conversation is opened, so later writes by other
 * tabs do not move it: the one it shows already, else the one it showed before a reload,
 * else the one stored with the conversation. A stored leaf that messages now follow (written
 * before another tab or device went on from it) opens at the newest leaf under it: the
 * app only ever stores a leaf, so what follows it is where the conversation went on.
 */
export function settleLeaf(rt: Runtime, conversationId: string): void {
  const state = rt.store.getState();
  const tree = treeOf(state.messages[conversationId] ?? []);
  const mine = state.branchLeaf[conversationId] ?? tabLeafIn(rt, tree, conversationId);
  const stored = mine === undefined ? leafOf(state, conversationId) : undefined;
  const leaf = mine !== undefined ? resolveLeaf(tree, mine) : stored && tree.byId.has(stored) ? newestLeafUnder(tree, stored) : resolveLeaf(tree, stored);
  if (leaf) followLeaf(rt, conversationId, leaf);
}

/** Where this tab keeps the leaf it shows of each conversation: a JSON object of conversation id to message id. */
const TAB_LEAVES_KEY = 'windowpane:shown-leaves';
/** Conversations remembered at most; the ones switched longest ago are forgotten first. */
const TAB_LEAVES_MAX = 200;

/** What this tab remembered, by conversation id; anything else found there (not JSON, not an object, not a string) reads as nothing. */
function readTabLeaves(rt: Runtime): Map<string, string> {
  const leaves = new Map<string, string>();
  try {
    const parsed: unknown = JSON.parse(rt.deps.session?.getItem(TAB_LEAVES_KEY) ?? '{}');
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return leaves;
    for (const [id, leaf] of Object.entries(parsed)) if (typeof leaf === 'string') leaves.set(id, leaf);
  } catch {
    // Unreadable or not JSON: the stored leaf is used.
  }
  return leaves;
}

/**
 * The leaf a conversation being opened will show, before its messages are read: this tab's
 * own, else the one it showed before a reload, else the one stored with the conversation.
 * Unchecked: it may name no message of the conversation.
 */
export function leafToOpen(rt: Runtime, conversationId: string): string | undefined {
  const state = rt.store.getState();
  return state.branchLeaf[conversationId] ?? readTabLeaves(rt).get(conversationId) ?? leafOf(state, conversationId);
}

/** The leaf this tab remembered for the conversation, when it names one of that conversation's messages. */
function tabLeafIn(rt: Runtime, tree: ConversationTree, conversationId: string): string | undefined {
  const leaf = readTabLeaves(rt).get(conversationId);
  return leaf !== undefined && tree.byId.get(leaf)?.conversationId === conversationId ? leaf : undefined;
}

/** Remembers at once, for this tab's next reload, the leaf it shows now. */
function rememberTabLeaf(rt: Runtime, conversationId: string, leafId: string): void {
  const session = rt.deps.session;
  if (!session) return;
  const leaves = readTabLeaves(rt);
  leaves.delete(conversationId);
  leaves.set(conversationId, leafId);
  for (const id of leaves.keys()) {
    if (leaves.size <= TAB_LEAVES_MAX) break;
    leaves.delete(id);
  }
  try {
    session.setItem(TAB_LEAVES_KEY, JSON.stringify(Object.fromEntries(leaves)));
  } catch {
    // Full or blocked: a reload then reopens the leaf stored with the conversation, once its write lands.
  }
}
