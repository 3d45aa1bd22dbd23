/**
 * The `read_attachment` tool as a pure function: the model's input and the conversation's
 * attached files in, the tool result out. The store runs it (the files come from
 * IndexedDB); everything the model can get wrong comes back as an error result that says
 * how to call the tool right, never as an exception.
 */
import { READ_ATTACHMENT, READ_MAX_CHARS, READ_MAX_LINES } from './definitions';
import { parseToolArguments } from './toolArguments';
import { utf8Bytes } from '../utf8';

/** A file attached to a conversation, as the tool reads it: a text file by lines, a PDF by pages. */
export interface AttachmentText {
  /** The name the model asks for (unique within a conversation). */
  name: string;
  text: string;
  /** A PDF's extracted text, one string per page (absent for a text file). */
  pages?: readonly string[];
}

/** What a built-in tool returns to the model: the tool result's text, and whether it reports a failure (`is_error`). */
export interface ToolOutcome {
  content: string;
  isError: boolean;
}

const ARGUMENTS = ['name', 'start_line', 'end_line', 'pages'] as const;

/** Room kept out of READ_MAX_CHARS for the note on where to continue, and for the header besides the file name. */
const NOTE_CHARS = 300;
const HEADER_CHARS = 60;

const format = (n: number) => n.toLocaleString('en-US');

function error(content: string): ToolOutcome {
  return { content, isError: true };
}

/** The file's lines: split at \n (a \r before it dropped); a final line break ends the last line rather than starting one. */
function linesOf(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

function sizeText(bytes: number): string {
  if (bytes < 1024) return `${format(bytes)} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function plural(count: number, one: string, many: string): string {
  return `${format(count)} ${count === 1 ? one : many}`;
}

function listing(attachments: readonly AttachmentText[]): ToolOutcome {
  if (attachments.length === 0) return { content: 'No files are attached to this conversation.', isError: false };
  const rows = attachments.map((file) =>
    file.pages
      ? `- ${file.name} (PDF, ${plural(file.pages.length, 'page', 'pages')}; read it with pages)`
      : `- ${file.name} (${sizeText(utf8Bytes(file.text))}, ${plural(linesOf(file.text).length, 'line', 'lines')})`,
  );
  return { content: `${plural(attachments.length, 'file is', 'files are')} attached:\n${rows.join('\n')}`, isError: false };
}

function knownNames(attachments: readonly AttachmentText[]): string {
  return attachments.length === 0
    ? 'No files are attached to this conversation.'
    : `The attached files are: ${attachments.map((file) => JSON.stringify(file.name)).join(', ')}.`;
}

/** The input as an object of arguments, or the error to return. OpenAI arguments that arrive as JSON text are read too. */
function argumentsOf(input: unknown): Record<string, unknown> | ToolOutcome {
  const parsed = parseToolArguments(input);
  if (!parsed.ok && parsed.problem === 'not-json') {
    return error(`${READ_ATTACHMENT} takes a JSON object of arguments (name, start_line, end_line, pages); got text that is not JSON.`);
  }
  if (!parsed.ok) return error(`${READ_ATTACHMENT} takes an object of arguments (name, start_line, end_line, pages); got ${parsed.found}.`);
  const args = parsed.args;
  const unknown = Object.keys(args).filter((key) => !(ARGUMENTS as readonly string[]).includes(key));
  if (unknown.length > 0) {
    return error(
      `${READ_ATTACHMENT} does not take ${unknown.map((key) => JSON.stringify(key)).join(', ')}; its arguments are name, start_line, end_line and pages.`,
    );
  }
  return args;
}

function lineNumber(args: Record<string, unknown>, key: 'start_line' | 'end_line'): number | undefined | ToolOutcome {
  const value = args[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    return error(`${key} must be a whole number of 1 or more (lines count from 1); got ${JSON.stringify(value)}.`);
  }
  return value;
}

const isOutcome = (value: unknown): value is ToolOutcome => value !== null && typeof value === 'object' && 'isError' in value;

/**
 * Runs `read_attachment`. Without `name`: a listing of the attached files (name, size in
 * bytes, line count). With `name`: lines `start_line`..`end_line` (1-based, inclusive;
 * default from line 1, READ_MAX_LINES lines), each prefixed with its number and a tab.
 * At most READ_MAX_LINES lines and READ_MAX_CHARS characters in all; when it stops early
 * it says so and which `start_line` continues (a single line too long for the budget is
 * cut, and that is said too). An unknown name (the known ones are listed), a bad range or
 * a wrong argument type gives an error result. Pure and deterministic.
 */
export function readAttachment(input: unknown, attachments: readonly AttachmentText[]): ToolOutcome {
  const args = argumentsOf(input);
  if (isOutcome(args)) return args;
  const name = args.name;
  if (name === undefined || name === null) return listing(attachments);
  if (typeof name !== 'string') return error(`name must be the file name as text; got ${JSON.stringify(name)}.`);
  const start = lineNumber(args, 'start_line');
  if (isOutcome(start)) return start;
  const end = lineNumber(args, 'end_line');
  if (isOutcome(end)) return end;

  const file = attachments.find((candidate) => candidate.name === name);
  if (!file) {
    const alike = attachments.filter((candidate) => candidate.name.toLowerCase() === name.toLowerCase());
    const hint = alike.length === 1 ? ` Did you mean ${JSON.stringify((alike[0] as AttachmentText).name)}?` : '';
    return error(`No attached file is named ${JSON.stringify(name)}.${hint} ${knownNames(attachments)}`);
  }
  if (file.pages) {
    if (start !== undefined || end !== undefined) {
      return error(`${file.name} is a PDF: read it by page with pages (for example "3-5"), not with start_line and end_line.`);
    }
    return readPages(file.name, file.pages, args.pages);
  }
  if (args.pages !== undefined && args.pages !== null) {
    return error(`pages is for PDFs; ${file.name} is a text file: read it with start_line and end_line.`);
  }
  const lines = linesOf(file.text);
  const total = lines.length;
  if (total === 0) return { content: `${file.name} is empty.`, isError: false };
  const first = start ?? 1;
  if (end !== undefined && end < first) return error(`end_line (${end}) is before start_line (${first}); ask for start_line ≤ end_line.`);
  if (first > total) return error(`start_line ${format(first)} is past the end of ${file.name}, which has ${plural(total, 'line', 'lines')}.`);

  const asked = Math.min(end ?? first + READ_MAX_LINES - 1, total);
  const byLines = Math.min(asked, first + READ_MAX_LINES - 1);
  const width = String(byLines).length;
  const budget = READ_MAX_CHARS - NOTE_CHARS - HEADER_CHARS - file.name.length;
  const out: string[] = [];
  let used = 0;
  let last = first - 1;
  let cutLine = '';
  for (let n = first; n <= byLines; n++) {
    const prefix = `${String(n).padStart(width)}\t`;
    const line = lines[n - 1] as string;
    const cost = prefix.length + line.length + 1;
    if (used + cost > budget) {
      // The first line alone is too long: send what fits of it rather than nothing.
      if (n === first) {
        const room = Math.max(0, budget - prefix.length - 1);
        out.push(prefix + line.slice(0, room));
        cutLine = ` Line ${format(n)} is ${format(line.length)} characters long; only its first ${format(room)} are shown.`;
        last = n;
      }
      break;
    }
    out.push(prefix + line);
    used += cost;
    last = n;
  }

  const header = `${file.name}, lines ${format(first)}–${format(last)} of ${format(total)}:`;
  let note = cutLine;
  if (last < asked) {
    const limit = last < byLines ? `${format(READ_MAX_CHARS)} characters` : `${format(READ_MAX_LINES)} lines`;
    note += ` Stopped at line ${format(last)} of the ${format(first)}–${format(asked)} asked for: one call returns at most ${limit}. Continue with start_line ${last + 1}.`;
  } else if (end === undefined && last < total) {
    note += ` ${plural(total - last, 'more line follows', 'more lines follow')}; continue with start_line ${last + 1}.`;
  }
  return { content: `${header}\n${out.join('\n')}${note ? `\n[${note.trim()}]` : ''}`, isError: false };
}

/** `pages` as a first and last page (1-based, inclusive; the last may be open), or the error to return. */
function pageRange(value: unknown, total: number): { first: number; last?: number } | ToolOutcome {
  if (value === undefined || value === null) return { first: 1 };
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1) return { first: value, last: value };
  const match = typeof value === 'string' ? /^\s*(\d+)\s*(?:[-–]\s*(\d+)?\s*)?$/.exec(value) : null;
  if (!match) return error(`pages must be a page or a range of pages such as "3" or "3-5" (pages count from 1); got ${JSON.stringify(value)}.`);
  const first = Number(match[1]);
  const dash = /[-–]/.test(value as string);
  const last = match[2] !== undefined ? Number(match[2]) : dash ? undefined : first;
  if (first < 1) return error(`pages count from 1; got ${JSON.stringify(value)}.`);
  if (last !== undefined && last < first) return error(`pages ${JSON.stringify(value)} ends before it starts; ask for a range such as "3-5".`);
  if (first > total) return error(`page ${format(first)} is past the end: the PDF has ${plural(total, 'page', 'pages')}.`);
  return last === undefined ? { first } : { first, last };
}

/**
 * Pages of a PDF, each after a line naming it ("[page 3 of 12]"), as many of those asked
 * for as fit READ_MAX_CHARS; when it stops early it says which page continues. A single
 * page too long for the budget is cut, and that is said too.
 */
function readPages(name: string, pages: readonly string[], value: unknown): ToolOutcome {
  const total = pages.length;
  const range = pageRange(value, total);
  if (isOutcome(range)) return range;
  const asked = Math.min(range.last ?? total, total);
  const budget = READ_MAX_CHARS - NOTE_CHARS - HEADER_CHARS - name.length;
  const out: string[] = [];
  let used = 0;
  let last = range.first - 1;
  let cut = '';
  for (let n = range.first; n <= asked; n++) {
    const text = `[page ${format(n)} of ${format(total)}]\n${pages[n - 1]!.trim() || '(no text on this page)'}`;
    if (used + text.length + 2 > budget) {
      if (n === range.first) {
        out.push(text.slice(0, budget));
        cut = ` Page ${format(n)} is ${format(text.length)} characters long; only its first ${format(budget)} are shown.`;
        last = n;
      }
      break;
    }
    out.push(text);
    used += text.length + 2;
    last = n;
  }
  const span = last === range.first ? `page ${format(last)}` : `pages ${format(range.first)}–${format(last)}`;
  let note = cut;
  if (last < asked)
    note += ` Stopped at page ${format(last)} of the ${format(range.first)}–${format(asked)} asked for: one call returns at most ${format(READ_MAX_CHARS)} characters. Continue with pages "${last + 1}-${asked}".`;
  else if (range.last === undefined && last < total) note += ` ${plural(total - last, 'more page follows', 'more pages follow')}.`;
  return {
    content: `${name}, ${span} of ${format(total)} (text extracted from the PDF):\n${out.join('\n\n')}${note ? `\n[${note.trim()}]` : ''}`,
    isError: false,
  };
}
