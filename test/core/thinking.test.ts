import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EFFORTS,
  keepValidThinking,
  MODEL_REGISTRY,
  thinkingChanged,
  thinkingChoices,
  thinkingFromKey,
  thinkingKey,
  thinkingLabel,
  thinkingPrefixStart,
  thinkingRequest,
  thinkingSupport,
  validThinking,
  type AnthropicWireMessage as Msg,
  type ThinkingSetting,
} from '../../src/core';

const support = (id: string) => thinkingSupport(id.startsWith('claude-') ? 'anthropic' : 'openai', id);
const MAX_OUTPUT = 128_000;

const settingArb: fc.Arbitrary<ThinkingSetting> = fc.oneof(
  fc.constant<ThinkingSetting>({ kind: 'default' }),
  fc.constant<ThinkingSetting>({ kind: 'off' }),
  fc.constantFrom(...EFFORTS).map((effort): ThinkingSetting => ({ kind: 'effort', effort })),
  fc.integer({ min: 1024, max: 1_000_000 }).map((tokens): ThinkingSetting => ({ kind: 'budget', tokens })),
);

describe('what each model takes, as documented', () => {
  it('knows every current Anthropic and OpenAI model of the registry', () => {
    for (const model of MODEL_REGISTRY.filter((m) => m.provider !== 'demo')) expect(thinkingSupport(model.provider, model.id), model.id).toBeDefined();
  });

  it('Opus 5.5 cannot turn thinking off: Off becomes its lowest effort, and the user is told', () => {
    expect(validThinking(support('claude-opus-5-5'), { kind: 'off' }, MAX_OUTPUT)).toEqual({ kind: 'effort', effort: 'low' });
    expect(thinkingChanged(support('claude-opus-5-5'), { kind: 'off' }, MAX_OUTPUT)).toBe(true);
  });

  it('Sonnet 5.5 turns thinking off as "between tools", and says so', () => {
    const s = support('claude-sonnet-5-5');
    expect(validThinking(s, { kind: 'off' }, MAX_OUTPUT)).toEqual({ kind: 'off' });
    expect(thinkingRequest('anthropic', s, { kind: 'off' }).thinking).toEqual({ type: 'between_tools' });
    expect(thinkingLabel({ kind: 'off' }, s)).toBe('Off (notes between tools only)');
  });

  it('Opus 4.6 has no extra-high effort: the nearest level below is kept', () => {
    expect(validThinking(support('claude-opus-4-6'), { kind: 'effort', effort: 'xhigh' }, MAX_OUTPUT)).toEqual({ kind: 'effort', effort: 'high' });
  });

  it('Haiku 4.5 takes only a budget: an effort becomes the budget that stands for it, under max_tokens', () => {
    const s = support('claude-haiku-4-5');
    expect(validThinking(s, { kind: 'effort', effort: 'high' }, 64_000)).toEqual({ kind: 'budget', tokens: 16_384 });
    expect(validThinking(s, { kind: 'budget', tokens: 100_000 }, 64_000)).toEqual({ kind: 'budget', tokens: 63_999 });
    expect(thinkingRequest('anthropic', s, { kind: 'budget', tokens: 4096 })).toEqual({
      thinking: { type: 'enabled', budget_tokens: 4096 },
      extraOutput: 4096,
    });
  });

  it('a budget on a model without budgets becomes an effort', () => {
    expect(validThinking(support('claude-opus-5-5'), { kind: 'budget', tokens: 4096 }, MAX_OUTPUT)).toEqual({ kind: 'effort', effort: 'medium' });
  });

  it('GPT-6.1 Sol has no "none": Off becomes low; GPT-6 Luna sends reasoning_effort none', () => {
    expect(validThinking(support('gpt-6.1-sol'), { kind: 'off' }, MAX_OUTPUT)).toEqual({ kind: 'effort', effort: 'low' });
    expect(thinkingRequest('openai', support('gpt-6-luna'), { kind: 'off' })).toEqual({ reasoningEffort: 'none', extraOutput: 0 });
  });

  it('Anthropic models that hide thinking by default are asked for a summary of it', () => {
    expect(thinkingRequest('anthropic', support('claude-opus-5-5'), { kind: 'default' }).thinking).toEqual({ type: 'adaptive', display: 'summarized' });
    expect(thinkingRequest('anthropic', support('claude-opus-5-5'), { kind: 'effort', effort: 'high' })).toEqual({
      thinking: { type: 'adaptive', display: 'summarized' },
      effort: 'high',
      extraOutput: 0,
    });
    // Haiku 4.5 does not think unless asked: the default sends nothing.
    expect(thinkingRequest('anthropic', support('claude-haiku-4-5'), { kind: 'default' })).toEqual({ extraOutput: 0 });
  });

  it('an unknown model, a compatible server or the Demo gets nothing: the default', () => {
    expect(thinkingSupport('openai-compatible', 'qwen3:8b')).toBeUndefined();
    expect(thinkingSupport('anthropic', 'gpt-6-sol')).toBeUndefined();
    expect(validThinking(undefined, { kind: 'effort', effort: 'high' }, MAX_OUTPUT)).toEqual({ kind: 'default' });
    expect(thinkingRequest('openai-compatible', undefined, { kind: 'default' })).toEqual({ extraOutput: 0 });
  });
});

describe('any choice, any model', () => {
  const ids = MODEL_REGISTRY.filter((m) => m.provider !== 'demo').map((m) => m.id);

  it('is made valid once and for all: a valid choice stays as it is', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ids), settingArb, fc.integer({ min: 1, max: MAX_OUTPUT }), (id, setting, maxOutput) => {
        const once = validThinking(support(id), setting, maxOutput);
        expect(validThinking(support(id), once, maxOutput)).toEqual(once);
      }),
      // Every model × choice × limit is small enough to search well.
      { numRuns: 3000 },
    );
  });

  it('carries only fields the model takes, and a budget always under max_tokens', () => {
    fc.assert(
      fc.property(fc.constantFrom(...ids), settingArb, fc.integer({ min: 1, max: MAX_OUTPUT }), (id, setting, maxOutput) => {
        const s = support(id)!;
        const provider = id.startsWith('claude-') ? 'anthropic' : 'openai';
        const request = thinkingRequest(provider, s, validThinking(s, setting, maxOutput));
        if (request.effort) expect(s.efforts).toContain(request.effort);
        if (request.reasoningEffort) expect([...s.efforts, ...(s.off === 'none' ? ['none'] : [])]).toContain(request.reasoningEffort);
        if (request.thinking?.type === 'enabled') {
          expect(s.budget).toBe(true);
          expect(request.thinking.budget_tokens).toBeGreaterThanOrEqual(1024);
          expect(request.thinking.budget_tokens).toBeLessThan(maxOutput);
        }
        if (request.thinking?.type === 'disabled') expect(s.off).toBe('disabled');
        if (request.thinking?.type === 'between_tools') expect(s.off).toBe('between_tools');
        if (request.thinking?.type === 'adaptive') expect(s.adaptive).toBe(true);
      }),
      // Every model × choice × limit is small enough to search well.
      { numRuns: 3000 },
    );
  });

  it('every choice a menu lists is valid, and its key reads back the same', () => {
    for (const id of ids) {
      for (const choice of thinkingChoices(support(id), MAX_OUTPUT)) {
        expect(thinkingChanged(support(id), choice, MAX_OUTPUT), `${id} ${thinkingKey(choice)}`).toBe(false);
        expect(thinkingFromKey(thinkingKey(choice))).toEqual(choice);
      }
    }
    expect(thinkingFromKey('effort:huge')).toBeUndefined();
    expect(thinkingFromKey('budget:12')).toBeUndefined();
  });
});

describe('preserved thinking: what goes back', () => {
  const user = (text: string): Msg => ({ role: 'user', content: text });
  const thought = (text: string, answer: string): Msg => ({
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: text, signature: `sig-${text}` },
      { type: 'text', text: answer },
    ],
  });
  const start = thinkingPrefixStart('Be brief.', '');

  /** Keys as the app stores them: each answer keeps the key of the request it answered. */
  function conversation(turns: number): { messages: Msg[]; keys: Map<number, string> } {
    const messages: Msg[] = [];
    const keys = new Map<number, string>();
    for (let i = 0; i < turns; i++) {
      messages.push(user(`Question ${i}`));
      const { prefixKey } = keepValidThinking(messages, start, (index) => keys.get(index));
      keys.set(messages.length, prefixKey);
      messages.push(thought(`Thought ${i}`, `Answer ${i}`));
    }
    messages.push(user('Next'));
    return { messages, keys };
  }

  it('sends every thinking block back while nothing before it changed', () => {
    const { messages, keys } = conversation(4);
    const sent = keepValidThinking(messages, start, (index) => keys.get(index));
    expect(sent.dropped).toEqual([]);
    expect(sent.messages).toEqual(messages);
  });

  it('after a trim, leaves out the thinking of every answer written before it, and nothing else', () => {
    const { messages, keys } = conversation(4);
    // Keep the first exchange and the newest two: the third answer's prefix lost a question and an answer.
    const trimmed = [0, 1, 4, 5, 6, 7, 8];
    const sent = keepValidThinking(
      trimmed.map((i) => messages[i]!),
      start,
      (index) => keys.get(trimmed[index]!),
    );
    expect(sent.dropped).toEqual([3, 5]);
    expect(sent.messages[1]).toEqual(messages[1]);
    expect(sent.messages[3]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Answer 2' }] });
    expect(sent.messages[5]).toEqual({ role: 'assistant', content: [{ type: 'text', text: 'Answer 3' }] });
    // The next answer is written after this request: its key is of the messages as sent.
    expect(sent.prefixKey).not.toBe(keepValidThinking(messages, start, (index) => keys.get(index)).prefixKey);
  });

  it('after a trim, sends again the thinking of an answer written after it, while an older one is still left out', () => {
    const { messages, keys } = conversation(3);
    // The trim leaves out the second exchange: the third answer, written before it, loses its thinking.
    const trimmed = [0, 1, 4, 5, 6].map((i) => messages[i]!);
    const trimmedKeys = (index: number) => keys.get([0, 1, 4, 5, 6][index]!);
    const atTrim = keepValidThinking(trimmed, start, trimmedKeys);
    expect(atTrim.dropped).toEqual([3]);
    // The answer to that request is written after the prefix it sent, and keeps its key.
    const later = [...trimmed, thought('Thought 3', 'Answer 3'), user('More')];
    const sent = keepValidThinking(later, start, (index) => (index === 5 ? atTrim.prefixKey : trimmedKeys(index)));
    expect(sent.dropped).toEqual([3]);
    expect(sent.messages[1]).toEqual(messages[1]);
    expect(sent.messages[5]).toEqual(later[5]);
  });

  it('leaves out all thinking once the system prompt or the tools change, and an answer stored with no key', () => {
    const { messages, keys } = conversation(2);
    expect(keepValidThinking(messages, thinkingPrefixStart('Be thorough.', ''), (index) => keys.get(index)).dropped).toEqual([1, 3]);
    expect(keepValidThinking(messages, thinkingPrefixStart('Be brief.', '[{"name":"run_javascript"}]'), (index) => keys.get(index)).dropped).toEqual([1, 3]);
    expect(keepValidThinking(messages, start, (index) => (index === 3 ? keys.get(index) : undefined)).dropped).toEqual([1, 3]);
  });

  it('leaves out a message that was only thinking, and says which it kept', () => {
    const only: Msg = { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'opaque' }] };
    const sent = keepValidThinking([user('a'), only, user('b')], start, () => undefined);
    expect(sent.messages).toEqual([user('a'), user('b')]);
    expect(sent.kept).toEqual([0, 2]);
  });
});

describe('preserved thinking inside a tool loop', () => {
  const start = thinkingPrefixStart('', '[{"name":"lookup"}]');
  const ask: Msg = { role: 'user', content: 'Look it up' };
  const calls: Msg = {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'Need the table.', signature: 'sig-1' },
      { type: 'tool_use', id: 'call_1', name: 'lookup', input: { q: 'table' } },
    ],
  };
  const results: Msg = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'rows' }] };

  it('sends the calling answer’s thinking back as it is, before its calls, even when its prefix changed, and says so', () => {
    const sent = keepValidThinking([ask, calls, results], start, () => 'a key of another prefix');
    expect(sent.messages[1]).toBe(calls);
    expect(sent.dropped).toEqual([]);
    expect(sent.staleInToolLoop).toBe(true);
  });

  it('says nothing when the prefix is the one it was written after', () => {
    const key = keepValidThinking([ask], start, () => undefined).prefixKey;
    const sent = keepValidThinking([ask, calls, results], start, (index) => (index === 1 ? key : undefined));
    expect(sent.staleInToolLoop).toBe(false);
    expect(sent.messages).toEqual([ask, calls, results]);
  });

  it('says nothing either when an earlier answer’s thinking is left out but the calling answer was written after that', () => {
    const older: Msg = {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Old.', signature: 'sig-old' },
        { type: 'text', text: 'Old answer.' },
      ],
    };
    const before = [ask, older, { role: 'user', content: 'Now look it up' } satisfies Msg];
    // The older answer's prefix changed (a trim): it goes without its thinking, in this request and the one that made the calls.
    const made = keepValidThinking(before, start, () => 'a key of another prefix');
    const sent = keepValidThinking([...before, calls, results], start, (index) => (index === 3 ? made.prefixKey : 'a key of another prefix'));
    expect(sent.dropped).toEqual([1]);
    expect(sent.staleInToolLoop).toBe(false);
    expect(sent.messages[3]).toBe(calls);
  });

  describe('after a mid-loop trim, with adaptive thinking (the API may be asked to drop a block)', () => {
    const step = (n: number): [Msg, Msg] => [
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: `Step ${n}.`, signature: `sig-${n}` },
          { type: 'tool_use', id: `call_${n}`, name: 'lookup', input: { n } },
        ],
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: `call_${n}`, content: `row ${n}` }] },
    ];
    // The loop's first call was written after [ask]; then a trim changed what comes before it.
    const written = keepValidThinking([ask], start, () => undefined).prefixKey;
    const trimmedAsk: Msg = { role: 'user', content: '[1 earlier message truncated to fit context window]\n\nLook it up' };
    const [c1, r1] = step(1);
    const [c2, r2] = step(2);
    const [c3, r3] = step(3);

    it('keeps sending the stale answer as it was sent, so the answers written after it keep their thinking', () => {
      const keys = new Map<number, string>([[1, written]]);
      const first = keepValidThinking([trimmedAsk, c1, r1], start, (i) => keys.get(i), true);
      expect(first.staleInToolLoop).toBe(true);
      keys.set(3, first.prefixKey);
      const second = keepValidThinking([trimmedAsk, c1, r1, c2, r2], start, (i) => keys.get(i), true);
      // c1 fails its check, but c2 was written after it as sent: both go back byte for byte, and the API drops c1's.
      expect(second.messages).toEqual([trimmedAsk, c1, r1, c2, r2]);
      expect(second.keptStale).toEqual([1]);
      expect(second.dropped).toEqual([]);
      expect(second.staleInToolLoop).toBe(false);
      keys.set(5, second.prefixKey);
      const third = keepValidThinking([trimmedAsk, c1, r1, c2, r2, c3, r3], start, (i) => keys.get(i), true);
      expect(third.messages[5]).toBe(c3);
      expect(third.keptStale).toEqual([1]);
      expect(third.staleInToolLoop).toBe(false);
    });

    it('without asking the API to drop blocks, leaves the stale answer out, and the chain breaks the next answer’s check in turn', () => {
      const keys = new Map<number, string>([[1, written]]);
      keys.set(3, keepValidThinking([trimmedAsk, c1, r1], start, (i) => keys.get(i)).prefixKey);
      const second = keepValidThinking([trimmedAsk, c1, r1, c2, r2], start, (i) => keys.get(i));
      expect(second.dropped).toEqual([1]);
      expect(second.keptStale).toEqual([]);
      expect(second.staleInToolLoop).toBe(true);
    });

    it('leaves a stale answer out when no later answer was written after it as sent, and after a second trim', () => {
      const keys = new Map<number, string>([[1, written]]);
      keys.set(3, keepValidThinking([trimmedAsk, c1, r1], start, (i) => keys.get(i), true).prefixKey);
      // Nothing after c1 was written after it: it is left out (without its thinking), as before.
      const alone = keepValidThinking(
        [trimmedAsk, c1, r1, { role: 'assistant', content: 'Done.' }, { role: 'user', content: 'Thanks' }],
        start,
        (i) => keys.get(i),
        true,
      );
      expect(alone.dropped).toEqual([1]);
      expect(alone.keptStale).toEqual([]);
      expect(alone.messages[1]).toEqual({ role: 'assistant', content: [c1.content[1]] });
      // A second trim changes the prefix again: c1 and c2 are left out, and c3, the calling answer, is stale in the loop.
      keys.set(5, keepValidThinking([trimmedAsk, c1, r1, c2, r2], start, (i) => keys.get(i), true).prefixKey);
      const again: Msg = { role: 'user', content: '[3 earlier messages truncated to fit context window]\n\nLook it up' };
      const later = keepValidThinking([again, c1, r1, c2, r2, c3, r3], start, (i) => keys.get(i), true);
      expect(later.dropped).toEqual([1, 3]);
      expect(later.keptStale).toEqual([]);
      expect(later.staleInToolLoop).toBe(true);
      expect(later.messages[5]).toBe(c3);
    });
  });
});
