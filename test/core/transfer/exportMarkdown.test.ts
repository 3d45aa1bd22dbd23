import { describe, expect, it } from 'vitest';
import { exportToMarkdown, type ConversationRecords, type StoredMessage } from '../../../src/core';

const conversationId = 'conv-md';

function message(seq: number, fields: Partial<StoredMessage>): StoredMessage {
  return {
    id: `m-${seq}`,
    conversationId,
    seq,
    role: 'user',
    kind: 'message',
    content: [],
    createdAt: Date.UTC(2026, 0, 31, 14, 5 + seq),
    status: 'complete',
    ...fields,
  };
}

const entry: ConversationRecords = {
  conversation: {
    id: conversationId,
    title: 'Planning the\nmigration',
    createdAt: Date.UTC(2026, 0, 31, 14, 0),
    updatedAt: Date.UTC(2026, 0, 31, 15, 0),
    messageCount: 6,
  },
  messages: [
    message(0, { content: [{ type: 'text', text: 'Which tables move first?' }] }),
    message(1, {
      role: 'assistant',
      model: 'gpt-4.1',
      content: [
        { type: 'text', text: 'Let me look at the schema.' },
        { type: 'tool_use', id: 'call_7', name: 'read_schema', input: { table: 'orders' } },
      ],
      usage: { inputTokens: 900, outputTokens: 40, cacheReadTokens: 512, cacheWriteTokens: 0 },
    }),
    message(2, { content: [{ type: 'tool_result', tool_use_id: 'call_7', content: 'orders(id, total) -- uses ``` fences', is_error: true }] }),
    message(3, {
      kind: 'summary',
      covers: ['m-0', 'm-1', 'm-2'],
      content: [{ type: 'text', text: '[Conversation Summary]\nThe user is planning a table migration.\n\nOrders come first.' }],
    }),
    message(4, {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Orders has the most rows.' },
        { type: 'text', text: 'Start with orders.' },
      ],
      thinkingMs: 8_400,
    }),
    message(5, { role: 'assistant', status: 'interrupted', content: [{ type: 'text', text: 'Then move the cust' }] }),
  ],
};

describe('exportToMarkdown', () => {
  const markdown = exportToMarkdown([entry], { notSentIds: new Set(['m-0', 'm-1', 'm-2']) });

  it('titles the conversation and lists its facts', () => {
    expect(markdown).toContain('# Planning the migration\n\n_6 messages · created 2026-01-31 14:00 UTC · updated 2026-01-31 15:00 UTC_');
  });

  it('labels each turn with its speaker, model and time', () => {
    expect(markdown).toContain('## User — 2026-01-31 14:05 UTC\n\nWhich tables move first?');
    expect(markdown).toContain('## Assistant · gpt-4.1 — 2026-01-31 14:06 UTC');
    expect(markdown).toContain('_tokens: 900 in, 40 out, 512 cache read_');
  });

  it('marks a summary as a labelled blockquote that says how many messages it covers', () => {
    expect(markdown).toContain(
      '> **Conversation Summary (covers 3 messages)** — 2026-01-31 14:08 UTC\n>\n> [Conversation Summary]\n> The user is planning a table migration.\n>\n> Orders come first.',
    );
  });

  it('marks trimmed messages with one trim marker per run, keeping the messages', () => {
    const markers = markdown.match(/✂ \*\*Trim marker:\*\*/g) ?? [];
    expect(markers).toHaveLength(1);
    expect(markdown).toContain('> ✂ **Trim marker:** the next 3 messages were not sent to the model');
    expect(markdown.indexOf('Trim marker')).toBeLessThan(markdown.indexOf('Which tables move first?'));
  });

  it('shows tool calls and results as readable fenced blocks', () => {
    expect(markdown).toContain('**Tool call:** `read_schema` (id `call_7`)\n\n```json\n{\n  "table": "orders"\n}\n```');
    // The result contains a ``` run, so its fence is longer and the block stays intact.
    expect(markdown).toContain('**Tool result** for `call_7` (error):\n\n````\norders(id, total) -- uses ``` fences\n````');
  });

  it("names a tool result's images after its text, never embedding them", () => {
    const chart = { type: 'image' as const, fileId: 'f-1', name: 'chart_image image.png', mediaType: 'image/png', width: 640, height: 480, bytes: 9_000 };
    const withImage = exportToMarkdown([
      { ...entry, messages: [message(0, { content: [{ type: 'tool_result', tool_use_id: 'call_8', content: 'The chart.', images: [chart] }] })] },
    ]);
    expect(withImage).toContain('**Tool result** for `call_8`:\n\n```\nThe chart.\n```\n\n_Image: ` chart_image image.png `, 640×480 px_');
  });

  it('leaves thinking out unless asked, and flags an interrupted answer', () => {
    expect(markdown).not.toContain('Orders has the most rows.');
    expect(markdown).not.toContain('Thinking');
    expect(markdown).toContain('## Assistant — 2026-01-31 14:09 UTC\n\nStart with orders.');
    expect(markdown).toContain('Then move the cust\n\n_interrupted: the tab closed while this answer was streaming_');
  });

  it('folds thinking away before the answer, with its length and time, when asked', () => {
    const thinking = exportToMarkdown([entry], { includeThinking: true });
    expect(thinking).toContain('<details>\n<summary>Thinking · 5 words · 8 s</summary>\n\nOrders has the most rows.\n\n</details>\n\nStart with orders.');
  });

  it('names redacted thinking when asked, never its data', () => {
    const redacted: ConversationRecords = {
      conversation: { ...entry.conversation, messageCount: 1 },
      messages: [
        message(0, {
          role: 'assistant',
          content: [
            { type: 'redacted_thinking', data: 'EqQBsecret' },
            { type: 'text', text: 'Yes.' },
          ],
        }),
      ],
    };
    expect(exportToMarkdown([redacted])).not.toContain('redacted');
    const shown = exportToMarkdown([redacted], { includeThinking: true });
    expect(shown).toContain('_Thinking · redacted by the provider._\n\nYes.');
    expect(shown).not.toContain('EqQBsecret');
  });

  it('notes the reasoning within the output tokens', () => {
    const reasoned: ConversationRecords = {
      conversation: { ...entry.conversation, messageCount: 1 },
      messages: [
        message(0, {
          role: 'assistant',
          content: [{ type: 'text', text: 'Yes.' }],
          usage: { inputTokens: 20, outputTokens: 300, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 256 },
        }),
      ],
    };
    expect(exportToMarkdown([reasoned])).toContain('_tokens: 20 in, 300 out (of which 256 reasoning)_');
  });

  it('keeps math as its source TeX, in every delimiter, and prices as written', () => {
    const text = 'With \\( x \\) and $y$:\n\\[\n\\int_0^1 x\\,dx\n\\]\nand $$z^2$$, for $5 or $10.';
    const withMath: ConversationRecords = {
      conversation: { ...entry.conversation, messageCount: 2 },
      messages: [message(0, { content: [{ type: 'text', text: 'Integrate x.' }] }), message(1, { role: 'assistant', content: [{ type: 'text', text }] })],
    };
    expect(exportToMarkdown([withMath])).toContain(`\n\n${text}\n`);
  });

  it('says nothing about branches when there is one', () => {
    expect(markdown).not.toMatch(/other branch/);
  });

  it('separates several conversations with a rule', () => {
    const two = exportToMarkdown([entry, { ...entry, conversation: { ...entry.conversation, title: 'Second' } }]);
    expect(two).toContain('\n\n---\n\n# Second');
  });
});

describe('exportToMarkdown of a conversation with branches', () => {
  const say = (seq: number, text: string, parentId: string | null, fields: Partial<StoredMessage> = {}) =>
    message(seq, { parentId, role: seq % 2 === 0 ? 'user' : 'assistant', content: [{ type: 'text', text }], ...fields });
  // Two answers to the first question (m-1, m-3), and a second question asked twice after the first answer (m-2, m-4).
  const messages = [
    say(0, 'What is a B-tree?', null),
    say(1, 'A balanced search tree.', 'm-0'),
    say(2, 'Why balanced?', 'm-1'),
    say(3, 'A tree whose nodes hold many keys.', 'm-0'),
    say(4, 'How deep does it get?', 'm-1'),
    say(5, 'Logarithmically deep.', 'm-4'),
  ];
  const branched = (activeLeafId?: string): ConversationRecords => ({
    conversation: { ...entry.conversation, title: 'B-trees', messageCount: messages.length, activeLeafId },
    messages,
  });

  it('writes only the branch the user has open, and says how many others the JSON export keeps', () => {
    const markdown = exportToMarkdown([branched('m-2')]);
    expect(markdown).toContain('# B-trees\n\n_3 messages · created');
    expect(markdown).toContain('\n\n_This conversation has 2 other branches; the JSON export keeps every branch._\n\n## User');
    expect(markdown).toContain('A balanced search tree.');
    expect(markdown).toContain('Why balanced?');
    for (const elsewhere of ['A tree whose nodes hold many keys.', 'How deep does it get?', 'Logarithmically deep.']) expect(markdown).not.toContain(elsewhere);
  });

  it('writes the newest branch when none is open, or the one open names nothing', () => {
    for (const leaf of [undefined, 'gone']) {
      const markdown = exportToMarkdown([branched(leaf)]);
      expect(markdown).toContain('_4 messages');
      expect(markdown.indexOf('How deep does it get?')).toBeLessThan(markdown.indexOf('Logarithmically deep.'));
      expect(markdown).not.toContain('Why balanced?');
    }
  });

  it('says "1 other branch" for two', () => {
    const two: ConversationRecords = { conversation: { ...entry.conversation, title: 'Two' }, messages: messages.slice(0, 4) };
    expect(exportToMarkdown([two])).toContain('_This conversation has 1 other branch; the JSON export keeps every branch._');
  });

  it('keeps the summary of a shared beginning and leaves out a summary of another branch', () => {
    const withSummaries = [
      ...messages,
      say(6, '[Conversation Summary]\nShared start.', 'm-1', { kind: 'summary', covers: ['m-0', 'm-1'] }),
      say(7, '[Conversation Summary]\nThe depth question.', 'm-5', { kind: 'summary', covers: ['m-4', 'm-5'] }),
    ];
    const markdown = exportToMarkdown([{ conversation: branched('m-2').conversation, messages: withSummaries }]);
    expect(markdown).toContain('Shared start.');
    expect(markdown).not.toContain('The depth question.');
  });
});
