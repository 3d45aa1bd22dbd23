/**
 * The `run_javascript` tool's result text, as a pure function of what the sandboxed run
 * produced. The Worker that runs the snippet lives outside the core; this decides what the
 * model reads back, within RUN_MAX_OUTPUT_CHARS.
 */
import { RUN_MAX_OUTPUT_CHARS, RUN_TIME_LIMIT_MS } from './definitions';
import type { ToolOutcome } from './readAttachment';

/** What one run of a snippet produced, as the Worker reports it. */
export interface RunOutcome {
  /** What it printed (console.log, console.error...), one entry per call, in order. */
  logs: readonly string[];
  /** The value of its last expression (awaited), already rendered as text; absent when there was none. */
  result?: string;
  /** What it threw, or what its promise rejected with, rendered as text. */
  error?: string;
  /** It was stopped at RUN_TIME_LIMIT_MS. */
  timedOut?: boolean;
}

/** Room kept out of RUN_MAX_OUTPUT_CHARS for section labels and the note on what was cut. */
const FRAME_CHARS = 300;

const format = (n: number) => n.toLocaleString('en-US');

/** The start and the end of `text` within `max` characters, saying how much was left out between. */
function cutMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const marker = (left: number) => `\n[… ${format(left)} characters cut …]\n`;
  const room = Math.max(0, max - marker(text.length).length);
  const head = Math.ceil((room * 2) / 3);
  const tail = room - head;
  return `${text.slice(0, head)}${marker(text.length - room)}${tail > 0 ? text.slice(-tail) : ''}`;
}

function cutEnd(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/**
 * The tool result for a run: its printed output, then its result or its error, then a
 * note if it was stopped at the time limit. An error or a timeout makes it an error result.
 * At most RUN_MAX_OUTPUT_CHARS characters: past that, the result and the error keep up to a
 * quarter each and the output its start and end, with a note of how much there was.
 */
export function formatRunResult(outcome: RunOutcome): ToolOutcome {
  const output = outcome.logs.join('\n');
  const result = outcome.result ?? '';
  const error = outcome.error ?? '';
  const isError = outcome.error !== undefined || outcome.timedOut === true;
  const produced = output.length + result.length + error.length;
  const budget = RUN_MAX_OUTPUT_CHARS - FRAME_CHARS;
  let shown = { output, result, error };
  if (produced > budget) {
    let resultRoom = Math.min(result.length, Math.floor(budget / 4));
    let errorRoom = Math.min(error.length, Math.floor(budget / 4));
    const outputRoom = Math.min(output.length, budget - resultRoom - errorRoom);
    // What the output does not need goes back to the result, then the error.
    let spare = budget - outputRoom - resultRoom - errorRoom;
    const moreResult = Math.min(spare, result.length - resultRoom);
    resultRoom += moreResult;
    spare -= moreResult;
    errorRoom += Math.min(spare, error.length - errorRoom);
    shown = { output: cutMiddle(output, outputRoom), result: cutEnd(result, resultRoom), error: cutEnd(error, errorRoom) };
  }

  const sections: string[] = [];
  if (outcome.logs.length > 0) sections.push(`Output:\n${shown.output}`);
  if (outcome.result !== undefined) sections.push(`Result: ${shown.result}`);
  if (outcome.error !== undefined) sections.push(`Error: ${shown.error}`);
  if (outcome.timedOut)
    sections.push(`Stopped after ${RUN_TIME_LIMIT_MS / 1000} seconds, the time limit: it may loop forever or do too much work for one run.`);
  if (sections.length === 0) sections.push('Finished with no output and no result.');
  if (produced > budget) sections.push(`[Cut to ${format(RUN_MAX_OUTPUT_CHARS)} characters: the run produced ${format(produced)}.]`);
  return { content: sections.join('\n'), isError };
}
