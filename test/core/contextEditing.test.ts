import { describe, expect, it } from 'vitest';
import {
  fitsWithProviderClearing,
  PROVIDER_PLACEHOLDER_TOKENS,
  providerClearing,
  readStoredMessage,
  readStoredContextEdits,
  supportsContextEditing,
  type PlanItem,
} from '../../src/core';

const call = (n: number, name = 'read_log'): PlanItem => ({
  id: `a${n}`,
  message: { role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${n}`, name, input: { n } }] },
});
const result = (n: number): PlanItem => ({
  id: `r${n}`,
  message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: `the long output of call ${n}` }] },
});
/** The result as the plan sends it when it cleared it: a placeholder, with the original kept. */
const cleared = (n: number, savedTokens = 100): PlanItem => ({
  id: `r${n}`,
  message: {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: `[tool result cleared to save context: read_log {"n":${n}} — 110 tokens]` }],
  },
  cleared: { toolCallIds: [`toolu_${n}`], savedTokens, original: result(n).message },
});
const goal: PlanItem = { id: 'u0', message: { role: 'user', content: 'Read the logs.' } };

describe('providerClearing', () => {
  it('asks the provider to clear exactly the results the plan cleared, sending them whole', () => {
    const items = [goal, call(1), cleared(1, 300), call(2), cleared(2, 500), call(3), result(3), call(4), result(4)];
    const clearing = providerClearing(items)!;
    expect(clearing.clearToolUses).toEqual({ triggerToolUses: 3, keepToolUses: 2, clearAtLeastTokens: 400 });
    expect(clearing.results).toBe(2);
    expect(clearing.items.map((item) => item.message)).toEqual(
      [goal, call(1), result(1), call(2), result(2), call(3), result(3), call(4), result(4)].map((i) => i.message),
    );
  });

  it('keeps the same results cleared while calls are added after them, so the edited prefix stays', () => {
    const before = providerClearing([goal, call(1), cleared(1), call(2), result(2)])!;
    const after = providerClearing([goal, call(1), cleared(1), call(2), result(2), call(3), result(3), call(4), result(4)])!;
    // Two tool uses more, kept: the server still clears only the first.
    expect(after.clearToolUses.keepToolUses - before.clearToolUses.keepToolUses).toBe(2);
    expect(after.clearToolUses.triggerToolUses! - after.clearToolUses.keepToolUses).toBe(
      before.clearToolUses.triggerToolUses! - before.clearToolUses.keepToolUses,
    );
  });

  it('leaves the clearing to the browser when nothing is cleared or a pinned result would go, and allows for every placeholder', () => {
    expect(providerClearing([goal, call(1), result(1), call(2), result(2)])).toBeNull();
    const pinned = { ...result(1), pinned: true };
    expect(providerClearing([goal, call(1), pinned, call(2), cleared(2), call(3), result(3)])).toBeNull();
    // A result the plan kept whole (shorter than its placeholder) before a cleared one is cleared too, and allowed for.
    const items = [goal, call(1), result(1), call(2), cleared(2), call(3), result(3)];
    const clearing = providerClearing(items)!;
    expect(clearing.results).toBe(2);
    expect(clearing.clearToolUses).toMatchObject({ triggerToolUses: 2, keepToolUses: 1 });
    expect(fitsWithProviderClearing(20_000 - 2 * PROVIDER_PLACEHOLDER_TOKENS, clearing, 20_000)).toBe(true);
    expect(fitsWithProviderClearing(20_000 - 2 * PROVIDER_PLACEHOLDER_TOKENS + 1, clearing, 20_000)).toBe(false);
  });
});

describe('context editing facts', () => {
  it('is offered on the models the documentation lists, on Anthropic only', () => {
    expect(supportsContextEditing('anthropic', 'claude-haiku-5-5')).toBe(true);
    expect(supportsContextEditing('anthropic', 'claude-opus-4-6')).toBe(true);
    expect(supportsContextEditing('anthropic', 'claude-3-haiku-20240307')).toBe(false);
    expect(supportsContextEditing('demo', 'claude-haiku-5-5')).toBe(false);
    expect(supportsContextEditing('openai', 'gpt-6-luna')).toBe(false);
  });

  it('takes what Anthropic’s models endpoint stated for the key over the documented list', () => {
    expect(supportsContextEditing('anthropic', 'claude-haiku-5-5', false)).toBe(false);
    expect(supportsContextEditing('anthropic', 'claude-next-1', true)).toBe(true);
    expect(supportsContextEditing('openai', 'gpt-6-luna', true)).toBe(false);
  });

  it('reads stored edits back with the same checks as an answer', () => {
    expect(
      readStoredContextEdits([
        { kind: 'clear_tool_uses', clearedToolUses: 12, clearedInputTokens: 8400 },
        { kind: 'clear_tool_uses', clearedToolUses: -3, clearedInputTokens: 1 },
        'x',
      ]),
    ).toEqual([{ kind: 'clear_tool_uses', clearedToolUses: 12, clearedInputTokens: 8400 }]);
    expect(readStoredContextEdits({ kind: 'clear_thinking' })).toBeUndefined();
  });

  it('keeps an answer read back from storage whose edits are hostile, without them', () => {
    const answer = {
      id: 'a1',
      conversationId: 'c1',
      seq: 2,
      role: 'assistant',
      kind: 'message',
      content: [{ type: 'text', text: 'Done.' }],
      createdAt: 1,
      status: 'complete',
    };
    const valid = { ...answer, contextEdits: [{ kind: 'clear_tool_uses', clearedInputTokens: 900, clearedToolUses: 3 }] };
    expect(readStoredMessage(valid)).toBe(valid);
    const mixed = { ...answer, contextEdits: [valid.contextEdits[0], { kind: 'clear_tool_uses', clearedToolUses: 'all', clearedInputTokens: 1 }] };
    expect(readStoredMessage(mixed)).toEqual(valid);
    expect(readStoredMessage({ ...answer, contextEdits: 'cleared everything' })).toEqual(answer);
    // An edit carrying more than its counts comes back as its counts alone.
    const padded = { ...answer, contextEdits: [{ ...valid.contextEdits[0], note: 'x'.repeat(1000) }] };
    expect(readStoredMessage(padded)).toEqual(valid);
  });
});
