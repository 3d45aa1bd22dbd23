// Generated ChatGPT and Claude exports of any size, in their real shapes: for the shape,
// batching and scale tests and the import benchmark.

/** One ChatGPT conversation `n` with `messages` alternating user and assistant messages in a chain (plus the hidden root). */
export function chatGptConversation(n: number, messages: number, text: (i: number) => string = (i) => `Message ${i} of conversation ${n}`) {
  const id = `gpt-${n}`;
  const mapping: Record<string, unknown> = { [`${id}-root`]: { id: `${id}-root`, message: null, parent: null, children: messages > 0 ? [`${id}-0`] : [] } };
  for (let i = 0; i < messages; i++) {
    const node = `${id}-${i}`;
    mapping[node] = {
      id: node,
      parent: i === 0 ? `${id}-root` : `${id}-${i - 1}`,
      children: i + 1 < messages ? [`${id}-${i + 1}`] : [],
      message: {
        id: node,
        author: { role: i % 2 === 0 ? 'user' : 'assistant' },
        create_time: 1_700_000_000 + n * 1000 + i,
        content: { content_type: 'text', parts: [text(i)] },
        status: 'finished_successfully',
        metadata: i % 2 === 0 ? {} : { model_slug: 'gpt-4o' },
        recipient: 'all',
      },
    };
  }
  return {
    id,
    conversation_id: id,
    title: `ChatGPT conversation ${n}`,
    create_time: 1_700_000_000 + n * 1000,
    update_time: 1_700_000_000 + n * 1000 + messages,
    mapping,
    current_node: messages > 0 ? `${id}-${messages - 1}` : `${id}-root`,
  };
}

/** One Claude conversation `n` with `messages` alternating human and assistant messages. */
export function claudeConversation(n: number, messages: number) {
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1, 0, n, i)).toISOString();
  return {
    uuid: `claude-${n}`,
    name: `Claude conversation ${n}`,
    created_at: at(0),
    updated_at: at(messages),
    chat_messages: Array.from({ length: messages }, (_, i) => ({
      uuid: `claude-${n}-${i}`,
      sender: i % 2 === 0 ? 'human' : 'assistant',
      text: `Message ${i} of conversation ${n}`,
      content: [{ type: 'text', text: `Message ${i} of conversation ${n}` }],
      created_at: at(i),
      attachments: [],
      files: [],
    })),
  };
}

/** `count` conversations of `messages` messages each, made by `make`. */
export function generatedList<T>(make: (n: number, messages: number) => T, count: number, messages: number): T[] {
  return Array.from({ length: count }, (_, n) => make(n, messages));
}
