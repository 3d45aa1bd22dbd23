import { describe, expect, it } from 'vitest';
import { READ_MAX_CHARS, READ_MAX_LINES, readAttachment, type AttachmentText } from '../../../src/core';

/** A log of `count` lines: "line 1: GET /api/items 200", ... */
function log(count: number): string {
  return Array.from({ length: count }, (_, i) => `line ${i + 1}: GET /api/items 200`).join('\n') + '\n';
}

const files: AttachmentText[] = [
  { name: 'app.log', text: log(1000) },
  { name: 'notes.md', text: '# Notes\r\nCafé ☕ opens at 9.\r\n' },
  { name: 'empty.txt', text: '' },
];

describe('read_attachment: listing', () => {
  it('lists every attached file with its size and line count when called without a name', () => {
    const result = readAttachment({}, files);
    expect(result).toEqual({
      isError: false,
      content: ['3 files are attached:', '- app.log (28.2 KB, 1,000 lines)', '- notes.md (32 bytes, 2 lines)', '- empty.txt (0 bytes, 0 lines)'].join('\n'),
    });
    // No arguments at all, or JSON text of none (OpenAI), list the files too.
    expect(readAttachment(undefined, files)).toEqual(result);
    expect(readAttachment('{}', files)).toEqual(result);
  });

  it('says so when nothing is attached', () => {
    expect(readAttachment({}, [])).toEqual({ isError: false, content: 'No files are attached to this conversation.' });
  });
});

describe('read_attachment: reading lines', () => {
  it('returns the asked lines, numbered, with where it stands in the file', () => {
    const result = readAttachment({ name: 'app.log', start_line: 9, end_line: 11 }, files);
    expect(result).toEqual({
      isError: false,
      content: ['app.log, lines 9–11 of 1,000:', ' 9\tline 9: GET /api/items 200', '10\tline 10: GET /api/items 200', '11\tline 11: GET /api/items 200'].join(
        '\n',
      ),
    });
  });

  it('drops the \\r of Windows line breaks and reads a short file whole', () => {
    expect(readAttachment({ name: 'notes.md' }, files)).toEqual({ isError: false, content: 'notes.md, lines 1–2 of 2:\n1\t# Notes\n2\tCafé ☕ opens at 9.' });
    expect(readAttachment(JSON.stringify({ name: 'notes.md', start_line: 2 }), files).content).toBe('notes.md, lines 2–2 of 2:\n2\tCafé ☕ opens at 9.');
  });

  it('reads READ_MAX_LINES lines by default and says which line continues', () => {
    const result = readAttachment({ name: 'app.log' }, files);
    const lines = result.content.split('\n');
    expect(lines[0]).toBe(`app.log, lines 1–${READ_MAX_LINES} of 1,000:`);
    expect(lines).toHaveLength(READ_MAX_LINES + 2);
    expect(lines.at(-1)).toBe(`[600 more lines follow; continue with start_line ${READ_MAX_LINES + 1}.]`);
    expect(result.isError).toBe(false);
  });

  it('stops at READ_MAX_LINES even when more are asked for', () => {
    const result = readAttachment({ name: 'app.log', start_line: 101, end_line: 900 }, files);
    expect(result.content.split('\n')[0]).toBe(`app.log, lines 101–${100 + READ_MAX_LINES} of 1,000:`);
    expect(
      result.content.endsWith(
        `[Stopped at line ${100 + READ_MAX_LINES} of the 101–900 asked for: one call returns at most ${READ_MAX_LINES} lines. Continue with start_line ${101 + READ_MAX_LINES}.]`,
      ),
    ).toBe(true);
  });

  it('stops within READ_MAX_CHARS characters and says where to continue', () => {
    const wide = { name: 'wide.csv', text: Array.from({ length: 300 }, (_, i) => `${i + 1},${'x'.repeat(199)}`).join('\n') };
    const result = readAttachment({ name: 'wide.csv', start_line: 1, end_line: 300 }, [wide]);
    expect(result.content.length).toBeLessThanOrEqual(READ_MAX_CHARS);
    const shown = result.content.split('\n').filter((line) => /^ *\d+\t/.test(line));
    const last = shown.length;
    expect(last).toBeGreaterThan(80);
    expect(last).toBeLessThan(100);
    expect(result.content.split('\n')[0]).toBe(`wide.csv, lines 1–${last} of 300:`);
    expect(result.content).toContain(`one call returns at most ${READ_MAX_CHARS.toLocaleString('en-US')} characters. Continue with start_line ${last + 1}.`);
    // Every line shown is whole.
    expect(shown.every((line, i) => line === `${String(i + 1).padStart(3)}\t${i + 1},${'x'.repeat(199)}`)).toBe(true);
  });

  it('cuts a single line too long to send whole, and says so', () => {
    const minified = { name: 'bundle.js', text: `${'a'.repeat(50_000)}\nsecond line` };
    const result = readAttachment({ name: 'bundle.js' }, [minified]);
    expect(result.isError).toBe(false);
    expect(result.content.length).toBeLessThanOrEqual(READ_MAX_CHARS);
    expect(result.content.split('\n')[0]).toBe('bundle.js, lines 1–1 of 2:');
    expect(result.content).toMatch(/Line 1 is 50,000 characters long; only its first [\d,]+ are shown\./);
    expect(result.content).toContain('Continue with start_line 2.');
  });

  it('clamps an end_line past the end of the file, and reads an empty file', () => {
    expect(readAttachment({ name: 'notes.md', start_line: 1, end_line: 99 }, files).content).toBe(
      'notes.md, lines 1–2 of 2:\n1\t# Notes\n2\tCafé ☕ opens at 9.',
    );
    expect(readAttachment({ name: 'empty.txt' }, files)).toEqual({ isError: false, content: 'empty.txt is empty.' });
  });
});

describe('read_attachment: mistakes come back as error results that say what to do', () => {
  it.each([
    [{ name: 'App.log' }, 'No attached file is named "App.log". Did you mean "app.log"? The attached files are: "app.log", "notes.md", "empty.txt".'],
    [{ name: 'missing.txt' }, 'No attached file is named "missing.txt". The attached files are: "app.log", "notes.md", "empty.txt".'],
    [{ name: 'app.log', start_line: 20, end_line: 10 }, 'end_line (10) is before start_line (20); ask for start_line ≤ end_line.'],
    [{ name: 'app.log', start_line: 1001 }, 'start_line 1,001 is past the end of app.log, which has 1,000 lines.'],
    [{ name: 'app.log', start_line: 0 }, 'start_line must be a whole number of 1 or more (lines count from 1); got 0.'],
    [{ name: 'app.log', end_line: '40' }, 'end_line must be a whole number of 1 or more (lines count from 1); got "40".'],
    [{ name: 'app.log', start_line: 2.5 }, 'start_line must be a whole number of 1 or more (lines count from 1); got 2.5.'],
    [{ name: 42 }, 'name must be the file name as text; got 42.'],
    [{ path: 'app.log' }, 'read_attachment does not take "path"; its arguments are name, start_line, end_line and pages.'],
    [['app.log'], 'read_attachment takes an object of arguments (name, start_line, end_line, pages); got an array.'],
    ['{"name": "app.log"', 'read_attachment takes a JSON object of arguments (name, start_line, end_line, pages); got text that is not JSON.'],
  ])('%j', (input, message) => {
    expect(readAttachment(input, files)).toEqual({ isError: true, content: message });
  });

  it('says nothing is attached when asked for a file in an empty conversation', () => {
    expect(readAttachment({ name: 'app.log' }, [])).toEqual({
      isError: true,
      content: 'No attached file is named "app.log". No files are attached to this conversation.',
    });
  });
});
