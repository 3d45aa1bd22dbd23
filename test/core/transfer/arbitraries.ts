// Random canonical records for the round-trip properties (core and persistence). Objects
// get the ordinary prototype, as records read back from JSON or IndexedDB do.
import fc from 'fast-check';
import type { ContentBlock, Conversation, ConversationRecords, StoredMessage } from '../../../src/core';

const plain = { noNullPrototype: true } as const;
/** Any UTF-16 text, lone surrogates included: JSON and IndexedDB must carry it unchanged. */
const anyText = fc.string({ unit: 'binary', maxLength: 30 });
/** A JSON value as JSON carries it (fast-check may generate -0, which no JSON text can hold). */
const jsonValue = (maxDepth: number) => fc.jsonValue({ maxDepth }).map((value) => JSON.parse(JSON.stringify(value)) as unknown);
const time = fc.integer({ min: 0, max: 4_102_444_800_000 });
const count = fc.nat({ max: 2_000_000 });
/** Key names an export strips as credentials are never generated as ordinary settings. */
const settingKey = anyText.filter(
  (key) => !/^(api[-_]?keys?|authorization|x[-_]api[-_]key|secret|client[-_]?secret|password|access[-_]?token|bearer)$/i.test(key),
);

const block: fc.Arbitrary<ContentBlock> = fc.oneof(
  fc.record({ type: fc.constant('text' as const), text: anyText }, plain),
  fc.record({ type: fc.constant('tool_use' as const), id: anyText, name: anyText, input: jsonValue(3) }, plain),
  fc.record(
    { type: fc.constant('tool_result' as const), tool_use_id: anyText, content: anyText, is_error: fc.boolean() },
    { requiredKeys: ['type', 'tool_use_id', 'content'], noNullPrototype: true },
  ),
  fc.record({ type: fc.constant('thinking' as const), thinking: anyText, signature: anyText }, { requiredKeys: ['type', 'thinking'], noNullPrototype: true }),
  fc.record({ type: fc.constant('redacted_thinking' as const), data: anyText }, plain),
);

const messageFields = fc.record(
  {
    role: fc.constantFrom('user' as const, 'assistant' as const),
    kind: fc.constantFrom('message' as const, 'summary' as const),
    content: fc.array(block, { maxLength: 4 }),
    createdAt: time,
    // `streaming` is excluded: an imported message cannot still be streaming (it comes back `interrupted`).
    status: fc.constantFrom('complete' as const, 'stopped' as const, 'interrupted' as const, 'error' as const),
    pinned: fc.boolean(),
    covers: fc.array(
      anyText.filter((id) => id !== ''),
      { maxLength: 4 },
    ),
    model: anyText,
    provider: fc.constantFrom('anthropic' as const, 'openai' as const, 'openai-compatible' as const, 'demo' as const),
    usage: fc.oneof(
      fc.record({ inputTokens: count, outputTokens: count, cacheReadTokens: count, cacheWriteTokens: count }, plain),
      // Reasoning is a part of the output, never more than it.
      fc
        .record(
          { inputTokens: count, outputTokens: count, cacheReadTokens: count, cacheWriteTokens: count, share: fc.double({ min: 0, max: 1, noNaN: true }) },
          plain,
        )
        .map(({ share, ...usage }) => ({ ...usage, reasoningTokens: Math.floor(usage.outputTokens * share) })),
    ),
    error: fc.record({ code: anyText, message: anyText }, plain),
    thinkingMs: fc.nat({ max: 3_600_000 }),
  },
  { requiredKeys: ['role', 'kind', 'content', 'createdAt', 'status'], noNullPrototype: true },
);

const conversationFields = fc.record(
  {
    title: anyText,
    // Which message is the active leaf (modulo the count); absent: none set.
    activeLeaf: fc.nat(),
    createdAt: time,
    updatedAt: time,
    overrides: fc.dictionary(settingKey, jsonValue(2), { maxKeys: 3, noNullPrototype: true }),
    source: fc.record({ kind: fc.constantFrom('windowpane' as const, 'chatgpt' as const, 'claude' as const), id: anyText.filter((id) => id !== '') }, plain),
  },
  { requiredKeys: ['title', 'createdAt', 'updatedAt'], noNullPrototype: true },
);

/**
 * Up to `maxConversations` conversations with up to `maxMessages` messages each, every one
 * a tree: each message follows none (a first message) or an earlier message that is not a
 * summary, so the records are stored as written (every parent explicit and valid). Ids are
 * unique by construction (an arbitrary prefix plus position); seqs increase with arbitrary
 * gaps. Some conversations name an active leaf (any of their messages).
 */
export function conversationRecords(maxConversations = 4, maxMessages = 6): fc.Arbitrary<ConversationRecords[]> {
  // The parent: null, or the earlier non-summary message picked by the number (modulo their count).
  const parentPick = fc.option(fc.nat(), { freq: 4 });
  return fc
    .tuple(
      anyText,
      fc.array(fc.tuple(conversationFields, fc.array(fc.tuple(messageFields, fc.integer({ min: 1, max: 1000 }), parentPick), { maxLength: maxMessages })), {
        minLength: 1,
        maxLength: maxConversations,
      }),
    )
    .map(([prefix, list]) =>
      list.map(([{ activeLeaf, ...fields }, messageList], i): ConversationRecords => {
        const id = `${prefix}c${i}`;
        let seq = -1;
        const parents: string[] = [];
        const messages = messageList.map(([m, gap, pick], j): StoredMessage => {
          seq += gap;
          const parentId = pick === null || parents.length === 0 ? null : parents[pick % parents.length]!;
          const message: StoredMessage = { id: `${id}.m${j}`, conversationId: id, seq, parentId, ...m };
          if (m.kind !== 'summary') parents.push(message.id);
          return message;
        });
        const conversation: Conversation = { id, messageCount: messages.length, ...fields };
        if (activeLeaf !== undefined && messages.length > 0) conversation.activeLeafId = messages[activeLeaf % messages.length]!.id;
        return { conversation, messages };
      }),
    );
}
