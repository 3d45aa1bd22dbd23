/**
 * A long run_javascript task the scripted fake works through, and the Settings a loop needs
 * (a strategy with its fields, the tool round limit), shared by the browser tests of tool loops.
 */
import type { Page } from 'playwright-core';
import type { ReplyContext, ReplySpec } from '../fake-api/server';
import { openSettingsSection } from './uiHelpers';

/**
 * Opens Settings, picks `strategy` (Context → Strategy) and fills its `fields` by label, sets
 * the tool round limit, and saves.
 */
export async function chooseStrategyAndRounds(page: Page, strategy: string, fields: Record<string, string>, toolRounds: number): Promise<void> {
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Settings' });
  await openSettingsSection(page, 'Context');
  await dialog.getByLabel('Strategy', { exact: true }).selectOption(strategy);
  for (const [label, value] of Object.entries(fields)) await dialog.getByLabel(label, { exact: true }).fill(value);
  await openSettingsSection(page, 'Tools');
  await dialog.getByLabel('Tool rounds per turn', { exact: true }).fill(String(toolRounds));
  await dialog.getByRole('button', { name: 'Save' }).click();
  await dialog.waitFor({ state: 'hidden' });
}

/**
 * Code for the n-th call: prints 9 lines and ends with an expression whose value is known.
 * A call and its result come to about 140 tokens.
 */
export function codeFor(n: number): string {
  return [
    'const rows = [];',
    `for (let i = 0; i < 9; i++) rows.push('step ${n}.' + i + ': ' + (${n} * 31 + i) ** 2);`,
    "console.log(rows.join('\\n'));",
    `${n} * 2`,
  ].join('\n');
}

export interface ToolTask {
  /** run_javascript calls in all. */
  calls: number;
  /** Calls per answer. */
  perAnswer: number;
  /** The thinking each answer carries, given the number of its first call (or calls + 1 for the final answer); none when absent. */
  thinking?: (n: number) => string;
  /** The final answer's text, once every call was made; the fake's default reply when absent. */
  finalText?: string;
  /** The code of the n-th call; `codeFor` when absent. */
  code?: (n: number) => string;
}

/**
 * A model that works through `calls` run_javascript calls, `perAnswer` at a time, then
 * answers. Summary requests and requests that offer no run_javascript get the default reply.
 */
export function toolTask({ calls, perAnswer, thinking, finalText, code = codeFor }: ToolTask) {
  let made = 0;
  let done = false;
  return (context: ReplyContext): ReplySpec | undefined => {
    if (context.isSummaryRequest || !context.toolNames.includes('run_javascript') || done) return undefined;
    const withThinking = (n: number) => (thinking ? { thinking: thinking(n) } : {});
    if (made >= calls) {
      done = true;
      return finalText === undefined ? undefined : { ...withThinking(calls + 1), text: finalText };
    }
    const first = made + 1;
    const batch = Array.from({ length: Math.min(perAnswer, calls - made) }, (_, i) => ({
      name: 'run_javascript',
      input: { code: code(first + i) },
    }));
    made += batch.length;
    return { ...withThinking(first), text: `Step ${made}.`, toolCalls: batch };
  };
}
