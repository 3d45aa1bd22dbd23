// summarize keeps the newest tool exchange of each of the last 10 files it read or modified
// after a trim, and tells the summary prompt the goal and those files.
import { describe, expect, it } from 'vitest';
import {
  ConfigError,
  SLOT_ITEM_ID,
  planContext,
  resolvePlanSummary,
  summarizeStrategy,
  type ContextPlan,
  type PlanItem,
  type StrategyOptions,
} from '../../../src/core';
import { validateRequest } from '../validateRequest';
import { filesNamedBy } from '../../../src/core/window/recentFiles';
import { buildHistory, countTokens, SHAPES, type StepSpec, type WireShape } from './conversations';

const GOAL = 'Review the fifteen files.';

const read = (n: number): StepSpec => ({
  text: `Reading file${n}.ts.`,
  calls: [{ name: 'read_attachment', input: { name: `file${n}.ts` }, result: `// file${n}.ts\n${'x'.repeat(400)}` }],
});
const notes = (n: number): StepSpec => ({ text: `Notes on file${n}.ts: ${'n'.repeat(800)}` });

/**
 * Reads of file1.ts … file15.ts, each followed by notes, then file9.ts read again, then a
 * second turn. Ids: the read of file n is m(3n−2) (call) and m(3n−1) (result), its notes
 * m(3n); the second read of file9.ts is m46/m47, its notes m48; the last turn m49, m50.
 */
function fifteenFiles(shape: WireShape): PlanItem[] {
  const steps: StepSpec[] = [];
  for (let n = 1; n <= 15; n++) steps.push(read(n), notes(n));
  steps.push(read(9), notes(9));
  return buildHistory(
    {
      turns: [
        { user: GOAL, steps },
        { user: 'Which file first?', steps: [{ text: `file9.ts, because ${'w'.repeat(300)}` }] },
      ],
    },
    shape,
  );
}

/** The ids of the exchange that read file n (the first read; file9.ts's second read is m46/m47). */
const readIds = (n: number) => [`m${3 * n - 2}`, `m${3 * n - 1}`];

const options: StrategyOptions = { clearToolResults: false, summaryMaxTokens: 200 };

function plan(history: readonly PlanItem[], windowTokens: number, extra: StrategyOptions = {}): ContextPlan {
  return planContext({
    history,
    policy: { strategy: 'summarize', options: { ...options, ...extra } },
    model: { contextWindow: windowTokens, maxOutputTokens: 500 },
    counter: countTokens,
  });
}

const ids = (p: ContextPlan) => p.messages.map((item) => item.id);

describe('summarize keeps the latest results of the last 10 files', () => {
  it.each(SHAPES)('sends goal, summary, the latest read of files 6–15, then the newest messages (%s)', (shape) => {
    const history = fifteenFiles(shape);
    const result = plan(history, 4000);
    const sent = ids(result);
    expect(
      validateRequest(
        result.messages.map((item) => item.message),
        { provider: shape },
      ).violations,
    ).toEqual([]);
    expect(sent.slice(0, 2)).toEqual(['m0', SLOT_ITEM_ID]);

    // The newest read of each of the last 10 files, in history order, right after the summary.
    const latest = [6, 7, 8, 10, 11, 12, 13, 14, 15].flatMap(readIds).concat(['m46', 'm47']);
    for (const id of latest) expect(sent).toContain(id);
    expect(sent.slice(2, 14)).toEqual(latest.slice(0, 12));
    // Whatever else is sent is the newest messages: everything from the oldest of them to the end.
    const rest = sent.slice(2).filter((id) => !latest.includes(id));
    const historyIds = [...new Set(history.map((item) => item.id))];
    expect(rest.length).toBeGreaterThanOrEqual(2);
    const tail = historyIds.slice(historyIds.indexOf(rest[0] as string));
    expect(sent.slice(-tail.length)).toEqual(tail);
    // In history order throughout.
    const order = sent.slice(2).map((id) => historyIds.indexOf(id));
    expect(order).toEqual([...order].sort((a, b) => a - b));

    // Files 1–5, and the first read of file9.ts, are evicted.
    const evicted = result.evicted.map((e) => e.id);
    for (const n of [1, 2, 3, 4, 5, 9]) for (const id of readIds(n)) expect(evicted).toContain(id);
    for (const id of readIds(9)) expect(sent).not.toContain(id);

    const summary = result.slot?.summary;
    expect(summary).toMatchObject({ status: 'needed', prompt: 'concise', goal: GOAL });
    expect(summary?.preservedFiles).toEqual([6, 7, 8, 10, 11, 12, 13, 14, 15, 9].map((n) => `file${n}.ts`));
    // The summary condenses only what is not sent.
    for (const id of latest) expect(summary?.ids).not.toContain(id);
    expect(summary?.ids).toEqual(evicted);
    expect(result.metrics.overBudget).toBe(false);
  });

  it.each(SHAPES)('keeps the most recent files first when not all fit (%s)', (shape) => {
    const result = plan(fifteenFiles(shape), 2000);
    const files = result.slot?.summary?.preservedFiles ?? [];
    expect(files.length).toBeGreaterThan(0);
    expect(files.length).toBeLessThan(10);
    // file9.ts was read last, then 15, 14, ...: the kept ones are the newest of that order.
    const byRecency = [9, 15, 14, 13, 12, 11, 10, 8, 7, 6].map((n) => `file${n}.ts`);
    expect([...files].sort()).toEqual(byRecency.slice(0, files.length).sort());
    for (const n of [10, 6]) for (const id of readIds(n)) expect(ids(result)).not.toContain(id);
    expect(result.metrics.overBudget).toBe(false);
  });

  it.each(SHAPES)('puts the summary ahead of a kept read that comes right after the goal (%s)', (shape) => {
    const steps: StepSpec[] = [read(1), ...Array.from({ length: 8 }, (_, i) => notes(i + 2))];
    const history = buildHistory(
      {
        turns: [
          { user: GOAL, steps },
          { user: 'And now?', steps: [{ text: 'Done.' }] },
        ],
      },
      shape,
    );
    const result = plan(history, 2000, { minEvictedForSummary: 1 });
    expect(ids(result).slice(0, 4)).toEqual(['m0', SLOT_ITEM_ID, 'm1', 'm2']);
    expect(result.slot).toMatchObject({ index: 1, role: 'assistant', kind: 'summary' });
    expect(result.evicted[0]?.id).toBe('m3');
    expect(result.slot?.summary?.preservedFiles).toEqual(['file1.ts']);
    expect(
      validateRequest(
        result.messages.map((item) => item.message),
        { provider: shape },
      ).violations,
    ).toEqual([]);
  });

  it('keeps nothing for files with preserveRecentFiles: 0, and reads the knob like any other', () => {
    const history = fifteenFiles('anthropic');
    const off = plan(history, 4000, { preserveRecentFiles: 0 });
    const sent = ids(off);
    expect(sent.slice(0, 2)).toEqual(['m0', SLOT_ITEM_ID]);
    const historyIds = [...new Set(history.map((item) => item.id))];
    expect(sent.slice(2)).toEqual(historyIds.slice(-(sent.length - 2)));
    expect(off.slot?.summary?.preservedFiles).toBeUndefined();
    expect(off.slot?.summary?.goal).toBe(GOAL);

    expect(summarizeStrategy.defaults.preserveRecentFiles).toBe(10);
    expect(summarizeStrategy.resolveOptions({}).preserveRecentFiles).toBe(10);
    expect(() => plan(history, 4000, { preserveRecentFiles: -1 })).toThrow(ConfigError);
    expect(() => plan(history, 4000, { preserveRecentFiles: 2.5 })).toThrow(/preserveRecentFiles/);
  });

  it('does not keep an exchange whose results clearing replaced', () => {
    const result = plan(fifteenFiles('openai'), 4000, { clearToolResults: true, keepToolResults: 3 });
    const files = result.slot?.summary?.preservedFiles ?? [];
    expect(result.metrics.clearedToolResults).toBeGreaterThan(0);
    expect(files.length).toBeLessThan(10);
    // A listed file's latest result is sent as it is; a cleared one's file is not listed.
    const resultOf = (file: string) => (file === 'file9.ts' ? 'm47' : `m${3 * Number(file.slice(4, -3)) - 1}`);
    for (let n = 1; n <= 15; n++) {
      const file = `file${n}.ts`;
      const sent = result.messages.find((item) => item.id === resultOf(file));
      if (files.includes(file)) expect(sent?.cleared).toBeUndefined();
      if (sent?.cleared) expect(files).not.toContain(file);
    }
    for (const n of [1, 2, 3, 4, 5]) expect(ids(result)).not.toContain(readIds(n)[1]);
  });

  it('passes the goal and the files to the summary prompt', async () => {
    const result = plan(fifteenFiles('anthropic'), 4000);
    const prompts: string[] = [];
    const resolved = await resolvePlanSummary(result, {
      summarize: async (prompt) => {
        prompts.push(prompt);
        return 'Read fifteen files.';
      },
    });
    expect(resolved.outcome).toBe('summarized');
    expect(prompts[0]).toContain(`The user's goal: ${GOAL}`);
    expect(prompts[0]).toContain('Files whose latest results are kept verbatim after this summary: file6.ts, file7.ts, file8.ts, file10.ts');
  });
});

describe('filesNamedBy', () => {
  it('reads read_attachment’s name and any file argument, from objects or JSON text', () => {
    expect(filesNamedBy({ name: 'read_attachment', input: { name: 'app.log', start_line: 3 } })).toEqual(['app.log']);
    expect(filesNamedBy({ name: 'read_attachment', input: {} })).toEqual([]);
    expect(filesNamedBy({ name: 'write_file', input: '{"file_path":"src/a.ts","content":"x"}' })).toEqual(['src/a.ts']);
    expect(filesNamedBy({ name: 'edit', input: { paths: ['a.ts', ' b.ts ', 3, 'a.ts'], target_file: 'c.ts' } })).toEqual(['c.ts', 'a.ts', 'b.ts']);
    // `name` names a file only for read_attachment; text that is not JSON names nothing.
    expect(filesNamedBy({ name: 'greet', input: { name: 'Ada' } })).toEqual([]);
    expect(filesNamedBy({ name: 'write_file', input: '{"path": "a.ts"' })).toEqual([]);
  });
});
