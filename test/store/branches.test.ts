/**
 * Branches through the store's actions, as the transcript calls them: edits and
 * regenerations add versions and never overwrite, switching shows another branch, every
 * request is planned from the branch shown and ends with the user's turn, and storage keeps
 * every branch across a reload and across two tabs. Real store, fake IndexedDB, a scripted
 * provider standing in for the model.
 */
import fc from 'fast-check';
import { IDBFactory } from 'fake-indexeddb';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { WindowpaneError, buildTree, messageText, pathTo, versionsOf, type ContentBlock, type StoredMessage, type WindowMessage } from '../../src/core';
import { validateRequest } from '../core/validateRequest';
import type { ChatProvider, ChatRequest, ChatResult } from '../../src/providers';
import type { Runtime } from '../../src/store/runtime';
import { shownBranch, switchVersion } from '../../src/store/branches';
import { search, selectConversation } from '../../src/store/conversationActions';
import { editAndResend, regenerate } from '../../src/store/messageActions';
import { planFor, contextFor } from '../../src/store/planning';
import * as chat from '../../src/store/sendPipeline';
import { DEFAULT_SETTINGS, type Settings } from '../../src/store/settings';
import { answer, scriptedRuntime, sendAndSettle, settled } from './scriptedStore';

type Reply = (request: ChatRequest, index: number) => ChatResult | Promise<ChatResult>;

const text = (t: string): ContentBlock => ({ type: 'text', text: t });
const lastUserText = (request: ChatRequest) => {
  const last = request.messages.at(-1)!;
  return typeof last.content === 'string' ? last.content : JSON.stringify(last.content);
};

/** Answers "re: <the user's last text>", numbered by request. */
const echo: Reply = (request, i) => answer([text(`re: ${lastUserText(request)} #${i + 1}`)]);

interface Harness {
  rt: Runtime;
  requests: ChatRequest[];
  provider: 'anthropic' | 'openai';
}

async function runtime(reply: Reply, provider: 'anthropic' | 'openai', requests: ChatRequest[], settings?: (s: Settings) => Settings): Promise<Runtime> {
  const fake: ChatProvider = {
    id: provider,
    wireShape: provider,
    async send(request) {
      requests.push({ ...request, messages: structuredClone(request.messages) as ChatRequest['messages'] });
      return reply(request, requests.length - 1);
    },
    async complete() {
      return 'Summary of the earlier turns.';
    },
  };
  const rt = await scriptedRuntime(fake);
  const base: Settings = {
    ...DEFAULT_SETTINGS,
    provider,
    apiKeys: { [provider]: 'sk-test-key-0123456789' },
    models: { [provider]: provider === 'anthropic' ? 'claude-sonnet-4-6' : 'gpt-5.5' },
  };
  rt.store.setState({ settings: settings ? settings(base) : base });
  return rt;
}

async function start(reply: Reply = echo, provider: 'anthropic' | 'openai' = 'anthropic', settings?: (s: Settings) => Settings): Promise<Harness> {
  globalThis.indexedDB = new IDBFactory();
  const requests: ChatRequest[] = [];
  return { rt: await runtime(reply, provider, requests, settings), requests, provider };
}

const say = sendAndSettle;

const shown = (rt: Runtime) => shownBranch(rt.store.getState(), rt.store.getState().activeId).map((m) => messageText(m));
const all = (rt: Runtime) => rt.store.getState().messages[rt.store.getState().activeId!] ?? [];
const byText = (rt: Runtime, t: string) => all(rt).find((m) => messageText(m) === t)!;

/** Every request valid for its API, and ending with the user's turn (no assistant prefill). */
function expectSendable(requests: readonly ChatRequest[], provider: 'anthropic' | 'openai'): void {
  for (const [i, request] of requests.entries()) {
    expect(validateRequest(request.messages as WindowMessage[], { provider }), `request ${i + 1}`).toEqual({ ok: true, violations: [] });
    expect(['user', 'tool'], `request ${i + 1} ends with`).toContain(request.messages.at(-1)!.role);
  }
}

beforeEach(() => {
  vi.useRealTimers();
});

describe('branches through the store', () => {
  it('Regenerate adds a version, keeps the old answer, and sends a request ending with the question', async () => {
    const { rt, requests, provider } = await start();
    await say(rt, 'Hello');
    const first = byText(rt, 're: Hello #1');
    await regenerate(rt, first.id);
    await settled(rt);

    expect(shown(rt)).toEqual(['Hello', 're: Hello #2']);
    expect(all(rt).map((m) => messageText(m))).toEqual(['Hello', 're: Hello #1', 're: Hello #2']);
    expect(requests[1]!.messages.map((m) => m.role)).toEqual(['user']);
    const tree = buildTree(all(rt));
    expect(versionsOf(tree, byText(rt, 're: Hello #2').id)).toMatchObject({ index: 1, count: 2 });

    await switchVersion(rt, byText(rt, 're: Hello #2').id, -1);
    expect(shown(rt)).toEqual(['Hello', 're: Hello #1']);
    expectSendable(requests, provider);
  });

  it('Regenerate on an older answer starts a new branch there and keeps everything after the old one', async () => {
    const { rt, requests, provider } = await start();
    await say(rt, 'One');
    await say(rt, 'Two');
    await regenerate(rt, byText(rt, 're: One #1').id);
    await settled(rt);
    expect(shown(rt)).toEqual(['One', 're: One #3']);
    expect(requests[2]!.messages).toHaveLength(1);
    await switchVersion(rt, byText(rt, 're: One #3').id, -1);
    // The old version comes back with what followed it, down to its newest message.
    expect(shown(rt)).toEqual(['One', 're: One #1', 'Two', 're: Two #2']);
    // A new message goes on the branch shown.
    await say(rt, 'Three');
    expect(shown(rt)).toEqual(['One', 're: One #1', 'Two', 're: Two #2', 'Three', 're: Three #4']);
    expect(requests[3]!.messages.map((m) => (typeof m.content === 'string' ? m.content : ''))).toEqual(['One', 're: One #1', 'Two', 're: Two #2', 'Three']);
    expectSendable(requests, provider);
  });

  it('Edit on any question adds a version answered from there; the old question and its answers stay', async () => {
    const { rt, requests, provider } = await start(echo, 'openai');
    await say(rt, 'Alpha');
    await say(rt, 'Beta');
    await editAndResend(rt, byText(rt, 'Alpha').id, 'Alpha, edited');
    await settled(rt);

    expect(shown(rt)).toEqual(['Alpha, edited', 're: Alpha, edited #3']);
    expect(requests[2]!.messages.map((m) => m.content)).toEqual(['Alpha, edited']);
    expect(all(rt)).toHaveLength(6);
    const tree = buildTree(all(rt));
    expect(versionsOf(tree, byText(rt, 'Alpha, edited').id)).toMatchObject({ index: 1, count: 2 });
    await switchVersion(rt, byText(rt, 'Alpha, edited').id, -1);
    expect(shown(rt)).toEqual(['Alpha', 're: Alpha #1', 'Beta', 're: Beta #2']);
    // Editing leaves the composer's draft alone.
    rt.store.setState({ draft: 'half-typed' });
    await editAndResend(rt, byText(rt, 'Beta').id, 'Beta again');
    await settled(rt);
    expect(rt.store.getState().draft).toBe('half-typed');
    expect(shown(rt)).toEqual(['Alpha', 're: Alpha #1', 'Beta again', 're: Beta again #4']);
    expectSendable(requests, provider);
  });

  it('a failed regeneration keeps the old answer as the other version, with the error on the new one', async () => {
    const { rt, requests } = await start((request, i) => {
      if (i === 1) throw new WindowpaneError('provider', 'The provider is down.');
      return echo(request, i);
    });
    await say(rt, 'Hello');
    await regenerate(rt, byText(rt, 're: Hello #1').id);
    await settled(rt);
    const failed = shownBranch(rt.store.getState(), rt.store.getState().activeId).at(-1)!;
    expect(failed.status).toBe('error');
    expect(byText(rt, 're: Hello #1').status).toBe('complete');
    expect(versionsOf(buildTree(all(rt)), failed.id)).toMatchObject({ index: 1, count: 2 });
    expect(requests).toHaveLength(2);
  });

  it('a regeneration that cannot start shows the old answer again', async () => {
    const { rt } = await start();
    await say(rt, 'Hello');
    rt.deps.createProvider = async () => {
      throw new WindowpaneError('auth', 'The key was refused.');
    };
    await regenerate(rt, byText(rt, 're: Hello #1').id);
    await settled(rt);
    expect(shown(rt)).toEqual(['Hello', 're: Hello #1']);
  });

  it('an answer reached through tool calls is redone from the question', async () => {
    const { rt, requests, provider } = await start((request, i) =>
      i === 0 ? answer([text('Computing.'), { type: 'tool_use', id: 'toolu_1', name: 'run_javascript', input: { code: '1' } }]) : echo(request, i),
    );
    await say(rt, 'Compute');
    expect(all(rt)).toHaveLength(4);
    const final = all(rt).at(-1)!;
    await regenerate(rt, final.id);
    await settled(rt);
    expect(shown(rt)).toEqual(['Compute', 're: Compute #3']);
    expect(requests[2]!.messages.map((m) => m.role)).toEqual(['user']);
    // The new answer is a version of the turn's first answer.
    expect(versionsOf(buildTree(all(rt)), all(rt).at(-1)!.id)).toMatchObject({ index: 1, count: 2 });
    expectSendable(requests, provider);
  });

  it('a reload reopens the branch shown last; the gauge and the plan read that branch', async () => {
    const { rt, requests } = await start();
    const id = await say(rt, 'Hello');
    await regenerate(rt, byText(rt, 're: Hello #1').id);
    await settled(rt);
    await switchVersion(rt, byText(rt, 're: Hello #2').id, -1);
    rt.storage!.close();

    const again = await runtime(echo, 'anthropic', requests);
    await selectConversation(again, id);
    expect(shown(again)).toEqual(['Hello', 're: Hello #1']);
    const plan = planFor(contextFor(again, id), shownBranch(again.store.getState(), id));
    expect(plan.messages.map((item) => item.message.content)).toEqual(['Hello', 're: Hello #1']);
  });

  it('a search hit on a branch not shown opens the branch that holds it', async () => {
    const { rt, requests } = await start();
    const id = await say(rt, 'Hello');
    await say(rt, 'Tell me about otters');
    await editAndResend(rt, byText(rt, 'Tell me about otters').id, 'Tell me about beavers');
    await settled(rt);
    expect(shown(rt)[2]).toBe('Tell me about beavers');
    rt.storage!.close();

    const again = await runtime(echo, 'anthropic', requests);
    await search(again, 'otters');
    const hit = again.store.getState().searchHits!.find((h) => h.conversationId === id)!;
    expect(hit.matchedIn).toBe('message');
    await selectConversation(again, id, hit.messageId);
    expect(shown(again)).toEqual(['Hello', 're: Hello #1', 'Tell me about otters', 're: Tell me about otters #2']);
  });

  it('two tabs working on two branches of one conversation keep both', async () => {
    const { rt: tabA, requests } = await start();
    const id = await say(tabA, 'Shared');
    const tabB = await runtime(echo, 'anthropic', requests);
    await selectConversation(tabB, id);
    await Promise.all([editAndResend(tabA, byText(tabA, 'Shared').id, 'From tab A'), editAndResend(tabB, byText(tabB, 'Shared').id, 'From tab B')]);
    await settled(tabA);
    await settled(tabB);
    const stored = await tabA.storage!.repositories.conversations.getMessages(id);
    const texts = stored.map((m) => messageText(m));
    expect(texts).toEqual(expect.arrayContaining(['Shared', 'From tab A', 'From tab B']));
    expect(new Set(stored.map((m) => m.seq)).size).toBe(stored.length);
    const tree = buildTree(stored);
    expect(versionsOf(tree, stored.find((m) => messageText(m) === 'From tab B')!.id)?.count).toBe(3);
    // Each tab still shows its own branch.
    expect(shown(tabA)[0]).toBe('From tab A');
    expect(shown(tabB)[0]).toBe('From tab B');
  });

  it('a summary of one branch is never sent on another', async () => {
    const { rt, requests } = await start(echo, 'anthropic', (s) => ({
      ...s,
      contextWindow: 8000,
      window: { ...s.window, strategy: 'summarize', summarize: true },
    }));
    const long = (word: string) => `${word} ${'words to fill the window '.repeat(40)}`;
    for (const word of 'abcdefghijklmn') await say(rt, long(word));
    const summaries = all(rt).filter((m) => m.kind === 'summary');
    expect(summaries.length).toBeGreaterThan(0);
    expect(JSON.stringify(requests.at(-1)!.messages)).toContain('Summary of the earlier turns');
    // A new version of the second question: the summaries covered messages that are not on the new branch.
    await editAndResend(rt, byText(rt, long('b')).id, 'b2');
    await settled(rt);
    const onBranch = new Set(shownBranch(rt.store.getState(), rt.store.getState().activeId).map((m) => m.id));
    expect(summaries.some((s) => onBranch.has(s.id))).toBe(false);
    expect(JSON.stringify(requests.at(-1)!.messages)).not.toContain('Summary of the earlier turns');
    // Back on the first branch, its summary is sent again.
    await switchVersion(rt, byText(rt, 'b2').id, -1);
    await say(rt, 'g');
    expect(JSON.stringify(requests.at(-1)!.messages)).toContain('Summary of the earlier turns');
  });
});

type Op =
  { kind: 'send' } | { kind: 'edit'; pick: number } | { kind: 'regenerate'; pick: number } | { kind: 'switch'; pick: number; step: -1 | 1 } | { kind: 'stop' };

const ops = fc.array(
  fc.oneof(
    fc.constant<Op>({ kind: 'send' }),
    fc.nat(40).map<Op>((pick) => ({ kind: 'edit', pick })),
    fc.nat(40).map<Op>((pick) => ({ kind: 'regenerate', pick })),
    fc.tuple(fc.nat(40), fc.constantFrom<-1 | 1>(-1, 1)).map<Op>(([pick, step]) => ({ kind: 'switch', pick, step })),
    fc.constant<Op>({ kind: 'stop' }),
  ),
  { minLength: 1, maxLength: 8 },
);

/** A tree is valid when every stored parent is an earlier message (or null) and every seq is unique. */
function expectValidTree(messages: readonly StoredMessage[]): void {
  const seqOf = new Map(messages.map((m) => [m.id, m.seq]));
  expect(new Set(messages.map((m) => m.seq)).size).toBe(messages.length);
  for (const m of messages) {
    expect(m.parentId === null || (typeof m.parentId === 'string' && seqOf.get(m.parentId)! < m.seq), `parent of ${m.id}`).toBe(true);
  }
}

describe('any sequence of sends, edits, regenerations, stops and switches', () => {
  it('leaves a valid tree whose every branch plans to a valid request', async () => {
    await fc.assert(
      fc.asyncProperty(ops, fc.constantFrom<'anthropic' | 'openai'>('anthropic', 'openai'), fc.boolean(), async (script, provider, tools) => {
        let n = 0;
        const { rt, requests } = await start(
          (request, i) =>
            tools && i % 3 === 1
              ? answer([text('Checking.'), { type: 'tool_use', id: `toolu_${i}`, name: 'run_javascript', input: { code: `${i}` } }])
              : echo(request, i),
          provider,
          (s) => ({ ...s, window: { ...s.window, strategy: 'count', maxMessages: 6, preserveFirst: 1, preserveLast: 3 } }),
        );
        await say(rt, 'start');
        for (const op of script) {
          const list = all(rt);
          const branch = shownBranch(rt.store.getState(), rt.store.getState().activeId);
          const pickFrom = <T>(items: readonly T[], pick: number) => (items.length > 0 ? items[pick % items.length] : undefined);
          if (op.kind === 'send') await say(rt, `m${++n}`);
          else if (op.kind === 'edit') {
            const target = pickFrom(
              branch.filter((m) => m.role === 'user' && m.content.every((b) => b.type === 'text')),
              op.pick,
            );
            if (target) await editAndResend(rt, target.id, `edit${++n}`);
          } else if (op.kind === 'regenerate') {
            const target = pickFrom(
              branch.filter((m) => m.role === 'assistant' && m.kind === 'message'),
              op.pick,
            );
            if (target) await regenerate(rt, target.id);
          } else if (op.kind === 'switch') {
            const target = pickFrom(list, op.pick);
            if (target) await switchVersion(rt, target.id, op.step);
          } else {
            chat.send(rt, rt.store.getState().activeId, `m${++n}`);
            chat.stop(rt, rt.store.getState().activeId!);
          }
          await settled(rt);
        }
        const stored = await rt.storage!.repositories.conversations.getMessages(rt.store.getState().activeId!);
        expectValidTree(stored);
        expect(stored.length).toBe(all(rt).length);
        expectSendable(requests, provider);
        // Every branch, not only the one shown, plans to a valid request.
        const tree = buildTree(stored);
        const id = rt.store.getState().activeId!;
        for (const m of stored) {
          if (m.kind === 'summary' || tree.childrenOf.has(m.id)) continue;
          rt.store.setState((s) => ({ branchLeaf: { ...s.branchLeaf, [id]: m.id } }));
          const plan = planFor(contextFor(rt, id), shownBranch(rt.store.getState(), id));
          expect(
            validateRequest(
              plan.messages.map((item) => item.message as WindowMessage),
              { provider },
            ).violations,
          ).toEqual([]);
          expect(pathTo(tree, m.id).at(-1)!.id).toBe(m.id);
        }
        rt.storage!.close();
      }),
      { numRuns: 25 },
    );
  }, 120_000);
});
