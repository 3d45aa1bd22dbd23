import { describe, expect, it } from 'vitest';
import { RUN_MAX_OUTPUT_CHARS, formatRunResult } from '../../../src/core';

describe('run_javascript: the result the model reads', () => {
  it('gives the printed output, then the value of the last expression', () => {
    expect(formatRunResult({ logs: ['3 rows', 'sum: 42'], result: '42' })).toEqual({ isError: false, content: 'Output:\n3 rows\nsum: 42\nResult: 42' });
    expect(formatRunResult({ logs: [], result: '[1, 2, 3]' })).toEqual({ isError: false, content: 'Result: [1, 2, 3]' });
  });

  it('reports a thrown error as an error result, after what was printed before it', () => {
    expect(formatRunResult({ logs: ['starting'], error: 'TypeError: rows.map is not a function' })).toEqual({
      isError: true,
      content: 'Output:\nstarting\nError: TypeError: rows.map is not a function',
    });
  });

  it('says when the time limit stopped it, keeping the output so far', () => {
    expect(formatRunResult({ logs: ['tick'], timedOut: true })).toEqual({
      isError: true,
      content: 'Output:\ntick\nStopped after 5 seconds, the time limit: it may loop forever or do too much work for one run.',
    });
  });

  it('says when there was nothing to show', () => {
    expect(formatRunResult({ logs: [] })).toEqual({ isError: false, content: 'Finished with no output and no result.' });
    // An empty line printed is still output, and an empty string is still a result.
    expect(formatRunResult({ logs: [''], result: '' })).toEqual({ isError: false, content: 'Output:\n\nResult: ' });
  });

  it('keeps within RUN_MAX_OUTPUT_CHARS: the start and end of the output, and the result, with a note', () => {
    const logs = Array.from({ length: 5000 }, (_, i) => `row ${i}`);
    const produced = logs.join('\n').length + 'done'.length;
    const { content, isError } = formatRunResult({ logs, result: 'done' });
    expect(isError).toBe(false);
    expect(content.length).toBeLessThanOrEqual(RUN_MAX_OUTPUT_CHARS);
    expect(content.startsWith('Output:\nrow 0\nrow 1\n')).toBe(true);
    expect(content).toMatch(/\[… [\d,]+ characters cut …\]/);
    expect(content).toContain('row 4999\nResult: done\n');
    expect(content.endsWith(`[Cut to ${RUN_MAX_OUTPUT_CHARS.toLocaleString('en-US')} characters: the run produced ${produced.toLocaleString('en-US')}.]`)).toBe(
      true,
    );
  });

  it('keeps the error readable however much was printed, and cuts a huge result or error too', () => {
    const everything = formatRunResult({ logs: ['x'.repeat(50_000)], result: 'r'.repeat(50_000), error: 'RangeError: '.padEnd(50_000, 'e'), timedOut: true });
    expect(everything.isError).toBe(true);
    expect(everything.content.length).toBeLessThanOrEqual(RUN_MAX_OUTPUT_CHARS);
    expect(everything.content).toMatch(/\nResult: r{2000,}…\nError: RangeError: e{2000,}…\nStopped after 5 seconds/);

    const shortOutput = formatRunResult({ logs: ['ok'], result: 'r'.repeat(50_000) });
    expect(shortOutput.content.length).toBeLessThanOrEqual(RUN_MAX_OUTPUT_CHARS);
    // What the output does not need goes to the result.
    expect(shortOutput.content.length).toBeGreaterThan(RUN_MAX_OUTPUT_CHARS - 400);
    expect(shortOutput.content.startsWith('Output:\nok\nResult: rrr')).toBe(true);
  });
});
