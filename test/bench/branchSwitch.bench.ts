// Switching branch in a 5,000-message conversation of 50 branches (see
// branchedConversation.ts; text from the corpus, as in conversations.ts), as the store and
// the chat screen do it, against planning a linear 5,000-message conversation the same
// way (the baseline, measured in the same run):
// - buildTree: once per messages list (a load, a new message), never on a switch;
// - the switch: versionStep (the leaf "Previous version" leads to) + branchMessages (what
//   branchOf computes for a branch not shown before), from the newest branch's third
//   version of its last user message to the second (2,646 messages each);
// - the switch and the plan of the new branch, through contextOf and screenPlan (the
//   screen's and the next request's plan: buildHistory, then planContext), then with
//   chatView's rows and gauge too (the whole of what ChatPane derives). Counts are cached,
//   as they are after opening the conversation: the two branches share all but 2 messages;
// - opening (new records, nothing counted): buildTree, the newest branch, its plan,
//   against the same for the linear conversation without the tree.
// Every plan uses the default settings on claude-haiku-4-5 (auto; the default $0.50
// request budget binds first, so each plan sends about 90 of the messages).
// Then buildTree, the switch and switch + plan at 1,250, 5,000 and 10,000 messages (50
// branches each, continuations in proportion): ratio = the larger ÷ the smaller, which
// grows as the branch (the conversation, for buildTree) when the cost is linear.
import { branchCount, branchMessages, buildTree, emptyCalibration, versionsOf, versionStep, type StoredMessage } from '../../src/core';
import { chatView } from '../../src/store/chatView';
import { contextOf, screenPlan } from '../../src/store/planning';
import { withDefaults } from '../../src/store/storedSettings';
import { rawCounter } from '../../src/store/turn';
import { branchedConversation, BRANCHES, type BranchedConversation } from './branchedConversation';
import { chatHistory } from './conversations';
import { fmtMs, fmtRatio, type Row } from './harness';
import { interleavedMedians } from './interleaved';

export const title = 'Switching branch in a 5,000-message conversation of 50 branches (CPU time; ratio = ÷ planning a linear 5,000-message conversation)';

const BIG = 5_000;
const SMALL = 1_250;
const HUGE = 10_000;
const MODEL_ID = 'claude-haiku-4-5';
const settings = withDefaults({ provider: 'anthropic', models: { anthropic: MODEL_ID } });
const calibration = emptyCalibration();

function contextFor(messages: readonly StoredMessage[]) {
  return contextOf({ settings, conversation: undefined, messages, hasAttachments: false, calibration, toolsRefused: [], modelLists: {} });
}

/** The plan the screen shows and the next request sends, made as the store makes it. */
function plan(messages: readonly StoredMessage[]) {
  return screenPlan(contextFor(messages), messages);
}

/** The same messages in one line, each following the one before. */
function linear(id: string, count: number): StoredMessage[] {
  const texts = chatHistory(count);
  return texts.map((item, seq) => ({
    id: `${id}-m${seq}`,
    conversationId: id,
    seq,
    parentId: seq === 0 ? null : `${id}-m${seq - 1}`,
    role: item.message.role,
    kind: 'message',
    content: [{ type: 'text', text: item.message.content as string }],
    createdAt: Date.UTC(2026, 0, 1) + seq * 60_000,
    status: 'complete',
  }));
}

function branched(count: number): BranchedConversation {
  const texts = chatHistory(count);
  return branchedConversation(`b${count}`, count, (seq) => texts[seq]!.message.content as string);
}

/** New record objects with the same text: what reading the conversation from storage again gives, so nothing cached by identity applies. */
const fresh = (messages: readonly StoredMessage[]) => messages.map((m) => ({ ...m, content: m.content.map((block) => ({ ...block })) }));

/** "Previous version" on the newest branch's last user message: the leaf it leads to, and that branch. */
function switchBranch(tree: ReturnType<typeof buildTree>, from: string) {
  const leaf = versionStep(tree, from, -1);
  return branchMessages(tree, leaf);
}

/** Checks what is timed before timing it: 50 branches, the switch lands on the second version's branch, and a warm plan counts nothing new. */
function check(conversation: BranchedConversation): void {
  const tree = buildTree(conversation.messages);
  const versions = versionsOf(tree, conversation.switchFrom);
  const branch = switchBranch(tree, conversation.switchFrom);
  const problems = [
    branchCount(tree) !== BRANCHES && `${branchCount(tree)} branches`,
    (versions?.index !== 2 || versions.count !== 3) && `the switched message is version ${versions ? versions.index + 1 : '?'} of ${versions?.count ?? '?'}`,
    tree.newest?.id !== conversation.newestLeaf && `the newest message is ${tree.newest?.id}`,
    branch.at(-1)?.id !== conversation.previousLeaf && `the switch led to ${branch.at(-1)?.id}`,
    branch.length !== conversation.branchLength && `the branch has ${branch.length} messages`,
  ].filter(Boolean);
  if (problems.length > 0) throw new Error(`branched conversation of ${conversation.messages.length}: ${problems.join(', ')}`);
  plan(branchMessages(tree, conversation.newestLeaf));
  const counts = () => {
    rawCounter.resetStats();
    const planned = plan(branch);
    return { planned, counted: rawCounter.stats().misses };
  };
  const first = counts();
  // A plan counts its truncation marker again (a new object every plan): beyond that, only the 2 messages the branches do not share.
  const again = counts();
  const { plan: planned, problem } = first.planned;
  if (problem || first.counted - again.counted !== 2 || planned.metrics.totalMessages !== branch.length) {
    throw new Error(
      `the switched branch's plan counted ${first.counted} messages, ${first.counted - again.counted} more than planning it again (2 expected), planned ${planned.metrics.totalMessages} of ${branch.length}; ${problem ?? ''}`,
    );
  }
}

export async function run(): Promise<Row[]> {
  const sizes = { small: branched(SMALL), big: branched(BIG), huge: branched(HUGE) };
  const flat = linear('flat', BIG);
  const trees = { small: buildTree(sizes.small.messages), big: buildTree(sizes.big.messages), huge: buildTree(sizes.huge.messages) };
  for (const [size, conversation] of Object.entries(sizes) as [keyof typeof sizes, BranchedConversation][]) {
    check(conversation);
    // Count every message of the two branches once, as opening the conversation and switching once would.
    plan(branchMessages(trees[size], conversation.newestLeaf));
    plan(switchBranch(trees[size], conversation.switchFrom));
  }
  plan(flat);

  const { big } = sizes;
  const bigTree = trees.big;
  const perSize = (make: (size: keyof typeof sizes) => () => unknown) => ({ small: make('small'), big: make('big'), huge: make('huge') });
  const tasks = {
    buildTree: perSize((size) => () => buildTree(sizes[size].messages)),
    switch: perSize((size) => () => switchBranch(trees[size], sizes[size].switchFrom)),
    switchPlan: perSize((size) => () => plan(switchBranch(trees[size], sizes[size].switchFrom))),
  };
  const t = await interleavedMedians(
    {
      linear: () => plan(flat),
      ...Object.fromEntries(Object.entries(tasks).flatMap(([name, bySize]) => Object.entries(bySize).map(([size, task]) => [`${name}.${size}`, task]))),
      switchScreen: () => {
        const branch = switchBranch(bigTree, big.switchFrom);
        const ctx = contextFor(branch);
        const { plan: planned } = screenPlan(ctx, branch);
        return chatView(ctx, branch, planned, undefined, 0, bigTree);
      },
      openLinearCold: { prepare: () => fresh(flat), run: (messages: StoredMessage[]) => plan(messages) },
      openCold: {
        prepare: () => fresh(big.messages),
        run: (messages: StoredMessage[]) => {
          const tree = buildTree(messages);
          return plan(branchMessages(tree, tree.newest?.id));
        },
      },
    },
    { rounds: 21, warmup: 3, minBatchMs: 50 },
  );
  const ms = (name: string) => t[name] ?? NaN;
  const baseline = `plan a linear 5,000-message conversation, counts cached: ${fmtMs(ms('linear'))}`;
  const row = (name: string, task: string): Row => ({
    benchmark: 'branch switch, 5,000 messages / 50 branches',
    case: name,
    value: fmtMs(ms(task)),
    baseline,
    ratio: fmtRatio(ms(task) / ms('linear')),
  });
  const count = (n: number) => n.toLocaleString('en-US');
  /** One task at two sizes: linear growth is the ratio of branch lengths (of messages, for buildTree). */
  const growth = (name: string, task: keyof typeof tasks, from: keyof typeof sizes, to: keyof typeof sizes): Row => {
    const [a, b] = [sizes[from], sizes[to]];
    const expected = task === 'buildTree' ? b.messages.length / a.messages.length : b.branchLength / a.branchLength;
    const what = task === 'buildTree' ? 'messages' : `branch ${count(a.branchLength)} → ${count(b.branchLength)}`;
    return {
      benchmark: `growth, ${count(a.messages.length)} → ${count(b.messages.length)} messages (50 branches)`,
      case: `${name} (${what}: ${expected.toFixed(1)}×)`,
      value: `${count(b.messages.length)}: ${fmtMs(ms(`${task}.${to}`))}`,
      baseline: `${count(a.messages.length)}: ${fmtMs(ms(`${task}.${from}`))}`,
      ratio: fmtRatio(ms(`${task}.${to}`) / ms(`${task}.${from}`)),
    };
  };
  return [
    row('buildTree (once per messages list, not per switch)', 'buildTree.big'),
    row(`switch: versionStep + branchMessages (branch of ${count(big.branchLength)})`, 'switch.big'),
    row(`switch + plan of the new branch (contextOf, screenPlan; ${MODEL_ID}, auto)`, 'switchPlan.big'),
    row('switch + plan + transcript rows and gauge (chatView): what the screen derives', 'switchScreen'),
    {
      benchmark: 'open, new records (nothing counted)',
      case: 'buildTree + newest branch + plan',
      value: fmtMs(ms('openCold')),
      baseline: `plan the linear 5,000, new records: ${fmtMs(ms('openLinearCold'))}`,
      ratio: fmtRatio(ms('openCold') / ms('openLinearCold')),
    },
    ...(['buildTree', 'switch', 'switchPlan'] as const).flatMap((task) => {
      const name = { buildTree: 'buildTree', switch: 'switch', switchPlan: 'switch + plan' }[task];
      return [growth(name, task, 'small', 'big'), growth(name, task, 'big', 'huge')];
    }),
  ];
}
