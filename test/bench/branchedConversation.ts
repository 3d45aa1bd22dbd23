// A conversation of many messages over 50 branches, for the branch-switching benchmarks,
// built as edits build one: a shared trunk, then 49 edits of a user message, each a
// sibling of the message it replaces (same parent), written later (higher seq) and
// followed by its own continuation. 47 of them fork at 24 depths spread over the trunk,
// with continuations of about 1 % of the conversation each (50 messages at 5,000); the
// last two fork at the trunk's last turn with one answer each, so that turn has three
// versions and the newest branch ends on the answer of the third: at the bottom of the
// newest branch, "Previous version" is on screen. Every branch holds the trunk up to its
// fork, so the newest is about half the conversation (2,646 of 5,000 messages).
import type { StoredMessage } from '../../src/core';

export const BRANCHES = 50;

/** How a branched conversation was built: ids to switch between and what each branch holds. */
export interface BranchedConversation {
  messages: StoredMessage[];
  /** The user message of the newest branch that has versions (3 / 3): "Previous version" leads to `previousLeaf`. */
  switchFrom: string;
  /** Its previous version (2 / 3): "Next version" leads back to `newestLeaf`. */
  switchTo: string;
  /** The end of the newest branch (what opening the conversation shows). */
  newestLeaf: string;
  /** The end of the branch through `switchTo`. */
  previousLeaf: string;
  /** Messages on the newest branch (and on the one through `switchTo`: they have the same length). */
  branchLength: number;
}

/**
 * `count` messages (at least 1,000) of conversation `id` over 50 branches, with explicit
 * `parentId`s and `seq` in the order they were written. `text(seq, role)` gives each
 * message's text; `lastOfBranch` is appended to the last message of every branch, named
 * by its leaf's id, so a test can look for it on screen.
 */
export function branchedConversation(
  id: string,
  count: number,
  text: (seq: number, role: 'user' | 'assistant') => string,
  lastOfBranch: (leafId: string) => string = () => '',
): BranchedConversation {
  if (count < 1_000) throw new Error(`a branched conversation needs at least 1,000 messages, not ${count}`);
  const continuation = 2 * Math.round(count / 200); // even: each ends on an answer
  const spread = BRANCHES - 3; // edits with a continuation; the last two have one answer each
  const trunk = count - spread * continuation - 4;
  const turns = trunk / 2;
  const start = Date.UTC(2026, 0, 1);
  const messages: StoredMessage[] = [];
  const add = (messageId: string, parentId: string | null, role: 'user' | 'assistant') => {
    const seq = messages.length;
    messages.push({
      id: messageId,
      conversationId: id,
      seq,
      parentId,
      role,
      kind: 'message',
      content: [{ type: 'text', text: text(seq, role) }],
      createdAt: start + seq * 60_000,
      status: 'complete',
    });
    return messageId;
  };
  /** The last message of a branch gets its marker (its text is otherwise final). */
  const endBranch = (leaf: string) => {
    const message = messages[messages.length - 1]!;
    const block = message.content[0] as { type: 'text'; text: string };
    const marker = lastOfBranch(leaf);
    if (marker) message.content = [{ type: 'text', text: `${block.text}\n\n${marker}` }];
    return leaf;
  };

  const trunkIds: string[] = [];
  for (let i = 0; i < trunk; i++) trunkIds.push(add(`${id}-t${i}`, i === 0 ? null : trunkIds[i - 1]!, i % 2 === 0 ? 'user' : 'assistant'));
  endBranch(trunkIds[trunk - 1]!);
  // Two edits at each of 24 depths, the first (turn trunk/50) to the last (24/25 of the way).
  for (let e = 0; e < spread; e++) {
    const turn = Math.floor((((e >> 1) + 1) * turns) / 25);
    let parent = add(`${id}-b${e}-0`, trunkIds[2 * turn - 1]!, 'user');
    for (let j = 1; j < continuation; j++) parent = add(`${id}-b${e}-${j}`, parent, j % 2 === 0 ? 'user' : 'assistant');
    endBranch(parent);
  }
  const lastTurnParent = trunkIds[trunk - 3]!;
  const switchTo = add(`${id}-b${spread}-0`, lastTurnParent, 'user');
  const previousLeaf = endBranch(add(`${id}-b${spread}-1`, switchTo, 'assistant'));
  const switchFrom = add(`${id}-b${spread + 1}-0`, lastTurnParent, 'user');
  const newestLeaf = endBranch(add(`${id}-b${spread + 1}-1`, switchFrom, 'assistant'));
  if (messages.length !== count) throw new Error(`built ${messages.length} messages, not ${count}`);
  return { messages, switchFrom, switchTo, newestLeaf, previousLeaf, branchLength: trunk };
}
