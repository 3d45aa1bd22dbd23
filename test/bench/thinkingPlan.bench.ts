// Planning a 1,000-turn conversation whose answers thought, against the same conversation
// without the thinking: what each request costs the planner once thinking is kept. Each
// plan starts cold (fresh stored messages, a new count cache), as after opening the
// conversation, and does what the app does before sending:
// - Anthropic (Claude Opus 5.5, which checks each thinking block's prefix): stored messages
//   to the wire shape, planContext with the default policy, then `keepValidThinking` (at
//   adaptive effort, as the gauge and the request apply it), which
//   hashes the prefix every answer's thinking was written after;
// - OpenAI (GPT-6 Luna through the Responses API): the wire shape, the reasoning the
//   current tool loop sends back (`loopReasoning`), planContext.
// Every answer's thinking is a signed block of 400–2,000 characters (OpenAI: its summary
// and encrypted reasoning); the last turn is a tool loop in progress.
import {
  createCountCache,
  estimateMessageTokens,
  hashString,
  keepValidThinking,
  loopReasoning,
  planContext,
  resolveModelInfo,
  thinkingPrefixStart,
  toAnthropicWire,
  toOpenAIWire,
  type AnthropicWireMessage,
  type ContentBlock,
  type ModelLimits,
  type OpenAIWireMessage,
  type PlanItem,
  type StoredMessage,
} from '../../src/core';
import { chatHistory, seededRandom } from './conversations';
import { fmtMs, fmtRatio, type Row } from './harness';
import { interleavedMedians } from './interleaved';

export const title = 'Planning 1,000 turns whose answers thought vs the same turns without thinking (CPU time; ratio = with ÷ without)';

const TURNS = 1_000;

/** 1,000 turns of stored messages (texts from the bench corpus), the last one a tool loop in progress; with `thinking`, every answer thought first. */
function storedTurns(thinking: boolean, provider: 'anthropic' | 'openai'): StoredMessage[] {
  const texts = chatHistory(TURNS * 2, 7).map((item) => item.message.content as string);
  const random = seededRandom(11);
  const out: StoredMessage[] = [];
  const add = (role: 'user' | 'assistant', content: ContentBlock[], extra: Partial<StoredMessage> = {}) =>
    out.push({
      id: `m${out.length}`,
      conversationId: 'c',
      seq: out.length,
      role,
      kind: 'message',
      content,
      createdAt: out.length,
      status: 'complete',
      ...extra,
    });
  const thought = (n: number): ContentBlock[] => {
    if (!thinking) return [];
    const text = texts[(n * 7) % texts.length]!.slice(0, 400 + Math.floor(random() * 1600));
    const sealed = `Eu${hashString(text).repeat(24)}`;
    return [
      provider === 'anthropic'
        ? { type: 'thinking', thinking: text, signature: sealed }
        : { type: 'thinking', thinking: text, reasoningItem: { id: `rs_${n}`, encryptedContent: sealed } },
    ];
  };
  for (let turn = 0; turn < TURNS; turn++) {
    add('user', [{ type: 'text', text: texts[turn * 2]! }]);
    const usage = { inputTokens: 0, outputTokens: 900, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: thinking ? 600 : 0 };
    if (turn < TURNS - 1) {
      add('assistant', [...thought(turn), { type: 'text', text: texts[turn * 2 + 1]! }], { usage });
    } else {
      add('assistant', [...thought(turn), { type: 'tool_use', id: 'toolu_last', name: 'run_javascript', input: { code: '6 * 7' } }], { usage });
      add('user', [{ type: 'tool_result', tool_use_id: 'toolu_last', content: '42' }]);
    }
  }
  return out;
}

/** The key each answer stored: the prefix it was written after, as the app keeps it (see preservedThinking.ts). */
function writtenAfterKeys(messages: readonly AnthropicWireMessage[], start: string): string[] {
  const keys: string[] = [];
  let key = start;
  for (const message of messages) {
    keys.push(key);
    key = hashString(`${key}\u0000${JSON.stringify(message)}`);
  }
  return keys;
}

const fresh = (messages: readonly StoredMessage[]) => messages.map((m) => ({ ...m, content: m.content.map((b) => ({ ...b })) }));

export async function run(): Promise<Row[]> {
  const opus = resolveModelInfo('claude-opus-5-5');
  const luna = resolveModelInfo('gpt-6-luna');
  const limits = (info: typeof opus): ModelLimits => ({ contextWindow: info.contextWindow, maxOutputTokens: info.maxOutputTokens });
  const start = thinkingPrefixStart('You are helpful.', '');

  const planAnthropic = (stored: StoredMessage[]) => {
    const history = toAnthropicWire(stored) as PlanItem<AnthropicWireMessage>[];
    return planContext({ history, policy: { strategy: 'auto' }, model: limits(opus), counter: createCountCache(estimateMessageTokens) });
  };
  /** `keys`: the prefix key each answer stored, by message id. */
  const anthropicPlan = (stored: StoredMessage[], keys: Map<string, string>) => {
    const plan = planAnthropic(stored);
    const sent = plan.messages.map((item) => item.message as AnthropicWireMessage);
    return keepValidThinking(sent, start, (i) => keys.get(plan.messages[i]!.id), true);
  };
  const openAIPlan = (stored: StoredMessage[]) => {
    const loop = loopReasoning(stored);
    const history = toOpenAIWire(stored, 'You are helpful.').map((item) => {
      const reasoning = loop.get(item.id);
      return reasoning && item.message.role === 'assistant' ? { ...item, message: { ...item.message, reasoning } as OpenAIWireMessage } : item;
    });
    return planContext({ history, policy: { strategy: 'auto' }, model: limits(luna), counter: createCountCache(estimateMessageTokens) });
  };

  const anthropic = { with: storedTurns(true, 'anthropic'), without: storedTurns(false, 'anthropic') };
  const openai = { with: storedTurns(true, 'openai'), without: storedTurns(false, 'openai') };
  // The keys the answers would hold had each been written after the prefix this plan sends
  // (the steady state the default strategy's trims return to): every thinking block goes back.
  const keysOf = (stored: StoredMessage[]) => {
    const sent = planAnthropic(fresh(stored)).messages;
    const keys = writtenAfterKeys(
      sent.map((item) => item.message as AnthropicWireMessage),
      start,
    );
    return new Map(sent.map((item, i) => [item.id, keys[i]!]));
  };
  const keys = { with: keysOf(anthropic.with), without: keysOf(anthropic.without) };

  // What is timed must be what the app does: every answer's thinking kept (its prefix unchanged), the loop's reasoning sent.
  const check = anthropicPlan(fresh(anthropic.with), keys.with);
  if (check.dropped.length > 0)
    throw new Error(`keepValidThinking dropped the thinking of ${check.dropped.length} answers: the bench's prefix keys no longer match preservedThinking.ts`);
  const openAICheck = openAIPlan(fresh(openai.with));
  const sentReasoning = openAICheck.messages.filter((item) => (item.message as OpenAIWireMessage).reasoning).length;
  if (sentReasoning !== 1) throw new Error(`the OpenAI plan sends reasoning on ${sentReasoning} answers, not the tool loop's one`);

  const t = await interleavedMedians(
    {
      anthropicWith: { prepare: () => fresh(anthropic.with), run: (stored: StoredMessage[]) => anthropicPlan(stored, keys.with) },
      anthropicWithout: { prepare: () => fresh(anthropic.without), run: (stored: StoredMessage[]) => anthropicPlan(stored, keys.without) },
      openaiWith: { prepare: () => fresh(openai.with), run: (stored: StoredMessage[]) => openAIPlan(stored) },
      openaiWithout: { prepare: () => fresh(openai.without), run: (stored: StoredMessage[]) => openAIPlan(stored) },
    },
    { rounds: 7, warmup: 2 },
  );
  const row = (provider: string, withMs: number, withoutMs: number, sent: number): Row => ({
    benchmark: 'Planning 1,000 turns with thinking',
    case: `${provider}: ${sent.toLocaleString('en-US')} messages sent`,
    value: fmtMs(withMs),
    baseline: `without thinking ${fmtMs(withoutMs)}`,
    ratio: fmtRatio(withMs / withoutMs),
  });
  return [
    row('Anthropic, Claude Opus 5.5 (wire, plan, prefix checks)', t.anthropicWith ?? NaN, t.anthropicWithout ?? NaN, check.messages.length),
    row('OpenAI, GPT-6 Luna (wire, loop reasoning, plan)', t.openaiWith ?? NaN, t.openaiWithout ?? NaN, openAICheck.messages.length),
  ];
}
