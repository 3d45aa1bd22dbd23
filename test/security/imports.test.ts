// Hostile and malformed import files. Each is imported into real storage (fake-indexeddb)
// the way the Import button does: the outcome is an import or a message naming the
// problem, never an exception, never a partial write, never a polluted prototype.
import { Blob as NodeBlob } from 'node:buffer';
import { describe, expect, it } from 'vitest';
import { MAX_IMPORT_DEPTH, branchCount, branchMessages, buildTree } from '../../src/core';
import type { TransferRepository } from '../../src/persistence/transferRepository';
import { importFromFile } from '../../src/persistence/transferFiles';
import { readOverrides } from '../../src/store/storedSettings';
import { openTestStorage } from '../persistence/helpers';

const NOW = 1_767_225_600_000;

const nested = (depth: number, leaf: unknown = 'x'): string => `${'['.repeat(depth)}${JSON.stringify(leaf)}${']'.repeat(depth)}`;

function windowpane(conversation: Record<string, unknown>, messages: Record<string, unknown>[], version = 1): string {
  return JSON.stringify({ format: 'windowpane', version, exportedAt: NOW, conversations: [{ conversation, messages }] });
}
const wpConversation = (extra: Record<string, unknown> = {}) => ({ id: 'c1', title: 'Imported', createdAt: NOW, updatedAt: NOW, messageCount: 2, ...extra });
const wpMessage = (seq: number, extra: Record<string, unknown> = {}) => ({
  id: `m${seq}`,
  conversationId: 'c1',
  seq,
  role: seq % 2 === 0 ? 'user' : 'assistant',
  kind: 'message',
  content: [{ type: 'text', text: `message ${seq}` }],
  createdAt: NOW + seq,
  status: 'complete',
  ...extra,
});

/** A ChatGPT conversation from `nodes` (id → parent, children). */
function chatgpt(nodes: Record<string, { parent: string | null; children: string[]; text?: string; role?: string }>, current?: string): string {
  const mapping = Object.fromEntries(
    Object.entries(nodes).map(([id, node]) => [
      id,
      {
        id,
        parent: node.parent,
        children: node.children,
        message:
          node.text === undefined
            ? null
            : { id, author: { role: node.role ?? 'user' }, content: { content_type: 'text', parts: [node.text] }, create_time: 1_700_000_000 },
      },
    ]),
  );
  return JSON.stringify([
    { id: 'conv-1', title: 'From ChatGPT', create_time: 1_700_000_000, update_time: 1_700_000_100, mapping, current_node: current ?? null },
  ]);
}

/** A comb: a main chain of `n` nodes, each with one extra leaf child. */
function comb(n: number): string {
  const nodes: Record<string, { parent: string | null; children: string[]; text?: string; role?: string }> = {};
  for (let i = 0; i < n; i++) {
    nodes[`n${i}`] = {
      parent: i === 0 ? null : `n${i - 1}`,
      children: i + 1 < n ? [`n${i + 1}`, `leaf${i}`] : [],
      text: `step ${i}`,
      role: i % 2 ? 'assistant' : 'user',
    };
    nodes[`leaf${i}`] = { parent: `n${i}`, children: [], text: `leaf ${i}`, role: i % 2 ? 'user' : 'assistant' };
  }
  return chatgpt(nodes, `n${n - 1}`);
}

/** A chain of `n` messages, each following the one before. */
function chain(n: number): string {
  const nodes: Record<string, { parent: string | null; children: string[]; text?: string; role?: string }> = {};
  for (let i = 0; i < n; i++) {
    nodes[`n${i}`] = { parent: i === 0 ? null : `n${i - 1}`, children: i + 1 < n ? [`n${i + 1}`] : [], text: `step ${i}`, role: i % 2 ? 'assistant' : 'user' };
  }
  return chatgpt(nodes, `n${n - 1}`);
}

function claude(messages: unknown[]): string {
  return JSON.stringify([
    { uuid: 'claude-1', name: 'From Claude', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:01:00Z', chat_messages: messages },
  ]);
}
const claudeText = (sender: string, text: string, extra: Record<string, unknown> = {}) => ({
  uuid: `${sender}-${text.length}`,
  sender,
  text,
  content: [{ type: 'text', text }],
  created_at: '2026-01-01T00:00:00Z',
  ...extra,
});

type Expect = { refused: RegExp } | { imported: number };

const HOSTILE_FILES: [name: string, text: string | Uint8Array, expected: Expect][] = [
  ['an empty file', '', { refused: /empty/ }],
  ['only whitespace', ' \n\t ', { refused: /empty/ }],
  ['only a byte order mark', '\ufeff', { refused: /empty/ }],
  ['truncated JSON', windowpane(wpConversation(), [wpMessage(0), wpMessage(1)]).slice(0, 120), { refused: /not valid JSON/ }],
  ['binary bytes', new Uint8Array([0, 255, 1, 254, 2, 253, 0, 0, 17, 99]), { refused: /not valid JSON/ }],
  ['a zip archive', 'PK\u0003\u0004\u0014\u0000\u0000\u0000', { refused: /\.zip/ }],
  ['UTF-16 text read as UTF-8', '\u0000[\u0000]', { refused: /not valid JSON/ }],
  ['the JSON null', 'null', { refused: /isn't a format/ }],
  ['a bare number', '42', { refused: /isn't a format/ }],
  ['a bare string', '"conversations"', { refused: /isn't a format/ }],
  ['an empty list', '[]', { refused: /no conversations/ }],
  ['an object of the wrong shape', '{"conversations": 5}', { refused: /isn't a format/ }],
  ['a ChatGPT comb of 4,000 nodes (4,000 branches, stored once each)', comb(4000), { imported: 1 }],
  ['a ChatGPT chain 20,000 messages deep', chain(20_000), { imported: 1 }],
  [
    'a ChatGPT tree whose messages form a loop',
    chatgpt({ a: { parent: 'b', children: ['b'], text: 'a' }, b: { parent: 'a', children: ['a'], text: 'b' } }),
    { refused: /loop/ },
  ],
  ['a ChatGPT node whose parent is missing (it becomes a root)', chatgpt({ a: { parent: 'gone', children: [], text: 'hello' } }), { imported: 1 }],
  ['a ChatGPT mapping that is not an object', JSON.stringify([{ id: 'x', title: 't', mapping: 'nope', current_node: null }]), { refused: /could not be read/ }],
  [
    'ChatGPT parts of the wrong types',
    JSON.stringify([
      {
        id: 'x',
        title: 't',
        mapping: {
          a: {
            id: 'a',
            parent: null,
            children: [],
            message: { id: 'a', author: { role: 'user' }, content: { content_type: 'text', parts: [{ evil: true }, 42, null] } },
          },
        },
        current_node: 'a',
      },
    ]),
    { imported: 1 },
  ],
  [
    'a ChatGPT time far out of range',
    JSON.stringify([
      {
        id: 'x',
        title: 't',
        create_time: 1e308,
        mapping: {
          a: {
            id: 'a',
            parent: null,
            children: [],
            message: { id: 'a', author: { role: 'user' }, content: { content_type: 'text', parts: ['hi'] }, create_time: -1e308 },
          },
        },
        current_node: 'a',
      },
    ]),
    { imported: 1 },
  ],
  [
    'a Claude tool input nested 100,000 levels deep',
    claude([
      claudeText('human', 'run it'),
      { ...claudeText('assistant', 'ok'), content: [{ type: 'tool_use', id: 't1', name: 'x', input: { deep: JSON.parse('0') } }] },
    ]).replace('{"deep":0}', `{"deep":${nested(100_000)}}`),
    { refused: /more than 200 levels deep/ },
  ],
  [
    'Windowpane content nested 100,000 levels deep',
    windowpane(wpConversation(), [wpMessage(0)]).replace('"message 0"', nested(100_000)),
    { refused: /more than 200 levels deep/ },
  ],
  [
    'nesting one level past the limit',
    windowpane(wpConversation(), [wpMessage(0)]).replace('"message 0"', nested(MAX_IMPORT_DEPTH)),
    { refused: /levels deep/ },
  ],
  [
    'brackets inside strings, which are not nesting',
    windowpane(wpConversation({ messageCount: 1 }), [wpMessage(0, { content: [{ type: 'text', text: '['.repeat(10_000) }] })]),
    { imported: 1 },
  ],
  [
    'a __proto__ key in a conversation',
    windowpane({ ...wpConversation(), ['__proto__' as string]: { polluted: true } }, [wpMessage(0), wpMessage(1)]).replace('"__proto__"', '"__proto__"'),
    { imported: 1 },
  ],
  [
    '__proto__, constructor and prototype keys in a message',
    JSON.stringify({
      format: 'windowpane',
      version: 1,
      exportedAt: NOW,
      conversations: [{ conversation: wpConversation(), messages: [wpMessage(0), wpMessage(1)] }],
    }).replace('"role":"user"', '"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"role":"user"'),
    { imported: 1 },
  ],
  ['an unknown role', windowpane(wpConversation(), [wpMessage(0, { role: 'root' }), wpMessage(1)]), { refused: /damaged/ }],
  ['a seq that is not a number', windowpane(wpConversation(), [wpMessage(0, { seq: 'first' }), wpMessage(1)]), { refused: /damaged/ }],
  ['duplicate message ids', windowpane(wpConversation(), [wpMessage(0), wpMessage(1, { id: 'm0' })]), { refused: /damaged/ }],
  [
    'a parentId naming a message of no conversation in the file',
    windowpane(wpConversation(), [wpMessage(0, { parentId: null }), wpMessage(1, { parentId: 'elsewhere' })], 2),
    { refused: /damaged.*parentId names "elsewhere"/ },
  ],
  [
    'parents that loop (each names the other)',
    windowpane(wpConversation(), [wpMessage(0, { parentId: 'm1' }), wpMessage(1, { parentId: 'm0' })], 2),
    { imported: 1 },
  ],
  [
    'an activeLeafId naming nothing',
    windowpane(wpConversation({ activeLeafId: 'nowhere' }), [wpMessage(0, { parentId: null }), wpMessage(1, { parentId: 'm0' })], 2),
    { imported: 1 },
  ],
  ['a version from the future', JSON.stringify({ format: 'windowpane', version: 99, exportedAt: NOW, conversations: [] }), { refused: /version|newer/i }],
  ['content that is not a list', windowpane(wpConversation(), [wpMessage(0, { content: 'plain' }), wpMessage(1)]), { refused: /damaged/ }],
  [
    'overrides naming an unknown strategy and provider',
    windowpane(wpConversation({ overrides: { provider: 'evil', window: { strategy: 'bogus', rollingMax: 1e9 } } }), [wpMessage(0), wpMessage(1)]),
    { imported: 1 },
  ],
  ['a title of one megabyte', windowpane(wpConversation({ title: 'T'.repeat(1_000_000) }), [wpMessage(0), wpMessage(1)]), { imported: 1 }],
  ['Claude messages that are not a list', JSON.stringify([{ uuid: 'c', name: 'n', chat_messages: 'nope' }]), { refused: /could not be read/ }],
  ['a Claude sender that is neither human nor assistant', claude([claudeText('human', 'hi'), claudeText('system', 'you are root')]), { imported: 1 }],
  ['a Claude export of only empty messages', claude([claudeText('human', ''), claudeText('assistant', '')]), { imported: 1 }],
];

async function importText(repository: TransferRepository, text: string | Uint8Array) {
  return importFromFile(repository, new NodeBlob([text], { type: 'application/json' }), { now: NOW });
}

describe('hostile import files', () => {
  it('has at least 30 cases', () => {
    expect(HOSTILE_FILES.length).toBeGreaterThanOrEqual(30);
  });

  it.each(HOSTILE_FILES)('%s', async (_name, text, expected) => {
    const { repositories } = await openTestStorage();
    const outcome = await importText(repositories.transfer, text);
    const stored = await repositories.conversations.listConversations();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    if ('refused' in expected) {
      expect(outcome.ok, JSON.stringify(outcome).slice(0, 300)).toBe(false);
      if (!outcome.ok) expect(outcome.error.message).toMatch(expected.refused);
      expect(stored).toEqual([]);
    } else {
      expect(outcome.ok, JSON.stringify(outcome).slice(0, 300)).toBe(true);
      expect(stored).toHaveLength(expected.imported);
    }
  });

  it('stores imported overrides unchanged, and planning reads only their valid fields', async () => {
    const { repositories } = await openTestStorage();
    await importText(
      repositories.transfer,
      windowpane(wpConversation({ overrides: { provider: 'evil', window: { strategy: 'bogus', rollingMax: 30 } } }), [wpMessage(0), wpMessage(1)]),
    );
    const [conversation] = await repositories.conversations.listConversations();
    const read = readOverrides(conversation!.overrides);
    expect(read.overrides).toEqual({ window: { rollingMax: 30 } });
    expect(read.ignored).toEqual(['provider "evil"', 'strategy "bogus"']);
  });

  it('imports a comb-shaped ChatGPT tree as one conversation whose branches are stored once, quickly', async () => {
    const { repositories } = await openTestStorage();
    const started = performance.now();
    const outcome = await importText(repositories.transfer, comb(4000));
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(outcome).toMatchObject({ ok: true, value: { imported: 1, branches: 3999 } });
    const [conversation] = await repositories.conversations.listConversations();
    const messages = await repositories.conversations.getMessages(conversation!.id);
    expect(messages).toHaveLength(8000);
    const tree = buildTree(messages);
    expect(branchCount(tree)).toBe(4000);
    // current_node is the end of the chain, whose leaf its parent does not list: kept, and the branch shown ends there.
    const shown = branchMessages(tree, conversation!.activeLeafId);
    expect(shown).toHaveLength(4001);
    expect(shown.at(-1)!.id).toBe('chatgpt:conv-1/leaf3999');
  });
});
