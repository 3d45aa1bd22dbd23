import { describe, expect, it } from 'vitest';
import { emptyCalibration, type AnthropicWireMessage, type ContentBlock, type StoredMessage } from '../../src/core';
import { chatView } from '../../src/store/chatView';
import { planFor } from '../../src/store/planning';
import { toRequest } from '../../src/store/request';
import { DEFAULT_SETTINGS, DEFAULT_WINDOW, type Settings } from '../../src/store/settings';
import { clearedToolCalls, pairToolResults } from '../../src/store/toolTranscript';
import { turnContext } from '../../src/store/turn';

const LOCAL_PLACEHOLDER = '[tool result cleared to save context: ';

let seq = 0;
const stored = (role: 'user' | 'assistant', content: ContentBlock[]): StoredMessage => {
  seq++;
  return { id: `m${seq}`, conversationId: 'c1', seq, role, kind: 'message', content, createdAt: seq, status: 'complete' };
};
const output = (n: number) => Array.from({ length: 30 }, (_, i) => `check ${n}.${i}: ${(n * 31 + i) ** 2} units counted`).join('\n');

/** A tool loop in progress: the goal, then `calls` run_javascript calls with long results, the last one just answered. */
function loop(calls: number): StoredMessage[] {
  const messages = [stored('user', [{ type: 'text', text: 'Run the checks.' }])];
  for (let n = 1; n <= calls; n++) {
    messages.push(stored('assistant', [{ type: 'tool_use', id: `toolu_${n}`, name: 'run_javascript', input: { code: `check(${n})` } }]));
    messages.push(stored('user', [{ type: 'tool_result', tool_use_id: `toolu_${n}`, content: output(n) }]));
  }
  return messages;
}

const settings = (window: Partial<Settings['window']>, more: Partial<Settings> = {}): Settings => ({
  ...DEFAULT_SETTINGS,
  provider: 'anthropic',
  apiKeys: { anthropic: 'sk-ant-test' },
  models: { anthropic: 'claude-haiku-5-5' },
  contextWindow: 12_000,
  maxOutputTokens: 1000,
  window: { ...DEFAULT_WINDOW, ...window },
  ...more,
});

function requestFor(s: Settings, history: StoredMessage[]) {
  const ctx = turnContext(s, undefined, emptyCalibration());
  const plan = planFor(ctx, history);
  return { plan, request: toRequest(ctx, plan).request };
}

const results = (messages: AnthropicWireMessage[]) =>
  messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === 'tool_result');

describe('clearing on the provider’s side', () => {
  const history = loop(40);

  it('sends the results the plan cleared whole, asking Anthropic to clear exactly those', () => {
    const { plan, request } = requestFor(settings({ clearOnProvider: true }), history);
    expect(plan.metrics.clearedToolResults).toBeGreaterThan(5);
    // The plan counts them cleared...
    expect(JSON.stringify(plan.messages.map((item) => item.message))).toContain(LOCAL_PLACEHOLDER);
    // ...the request carries them whole.
    expect(JSON.stringify(request.messages)).not.toContain(LOCAL_PLACEHOLDER);
    const sent = results(request.messages as AnthropicWireMessage[]);
    for (const block of sent) expect(block.content).toBe(output(Number(String(block.tool_use_id).slice(6))));
    const edit = request.contextManagement!.clearToolUses!;
    expect(edit.triggerToolUses).toBe(sent.length - 1);
    expect(sent.length - edit.keepToolUses).toBe(plan.metrics.clearedToolResults);
    expect(edit.clearAtLeastTokens).toBe(Math.floor(plan.metrics.clearedTokens / 2));
    // Haiku 5.5 thinks by default: every thinking block is kept, so the cached prefix holds.
    expect(request.contextManagement!.clearThinking).toEqual({ keepTurns: 'all' });
  });

  it('marks the results in the transcript as cleared by the provider, and only where it clears them', () => {
    const marks = (s: Settings) => {
      const ctx = turnContext(s, undefined, emptyCalibration());
      const plan = planFor(ctx, history);
      const view = chatView(ctx, history, plan, undefined, 0);
      return pairToolResults(view.rows, clearedToolCalls(plan), view.providerClears)
        .flatMap((row) => (row.kind === 'message' ? Object.values(row.toolResults ?? {}) : []))
        .filter((result) => result.cleared)
        .map((result) => result.byProvider ?? false);
    };
    const onProvider = marks(settings({ clearOnProvider: true }));
    expect(onProvider.length).toBeGreaterThan(5);
    expect(onProvider.every(Boolean)).toBe(true);
    expect(marks(settings({ clearOnProvider: false })).some(Boolean)).toBe(false);
    expect(marks(settings({ clearOnProvider: true }, { models: { anthropic: 'claude-3-5-haiku-20241022' } })).some(Boolean)).toBe(false);
  });

  it('asks nothing about thinking when thinking is off', () => {
    const { request } = requestFor(settings({ clearOnProvider: true }, { thinking: { kind: 'off' } }), history);
    expect(request.contextManagement).toEqual({ clearToolUses: expect.any(Object) as object });
  });

  it('clears in the browser when the setting is off, on a model without context editing, or when nothing is cleared', () => {
    for (const s of [settings({ clearOnProvider: false }), settings({ clearOnProvider: true }, { models: { anthropic: 'claude-3-5-haiku-20241022' } })]) {
      const { request } = requestFor(s, history);
      expect(request.contextManagement).toBeUndefined();
      expect(JSON.stringify(request.messages)).toContain(LOCAL_PLACEHOLDER);
    }
    const short = requestFor(settings({ clearOnProvider: true }), loop(3));
    expect(short.plan.metrics.clearedToolResults).toBe(0);
    expect(short.request.contextManagement).toBeUndefined();
  });
});
