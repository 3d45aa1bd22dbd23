/**
 * Finds the math in a message's text, the way ChatGPT and Claude write it: `$…$` and
 * `\(…\)` inline, `$$…$$` and `\[…\]` displayed, never inside code spans or fenced code.
 *
 * Markdown alone garbles it (`\(` is an escaped parenthesis, `_` starts emphasis), and a
 * math parser that takes every `$` as a delimiter turns prices into formulas ("$5 and
 * $10"). So the text is scanned once before parsing: every formula is rewritten to the
 * dollar form remark-math reads, and a `$` that cannot open or close a formula is escaped
 * so it stays text. A single `$` follows Pandoc's rule: the opening one has a non-space
 * right after it, the closing one a non-space right before it and no digit right after.
 */

/** One piece of a text: words, or a formula with its TeX source (delimiters removed). */
export type MathSegment = { kind: 'text'; text: string } | { kind: 'math'; tex: string; display: boolean };

/** A text prepared for a Markdown parser with math (remark-math, single dollars on). */
export interface MathMarkdown {
  /** The text with every formula in dollar form and every other `$` escaped. */
  markdown: string;
  /** Whether any formula was found; without one the text is left exactly as it was. */
  hasMath: boolean;
}

const FENCE = /^[ \t>]*(`{3,}|~{3,})/;
const LIST_ITEM = /^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
/** What may stand before a display formula that opens a line: quote markers, indentation, a list marker. */
const LINE_OPENER = /^[ \t>]*(?:(?:[-*+]|\d{1,9}[.)])[ \t]+)?$/;
const isSpace = (ch: string | undefined) => ch === undefined || ch === ' ' || ch === '\t' || ch === '\n' || ch === '\r';
const isDigit = (ch: string | undefined) => ch !== undefined && ch >= '0' && ch <= '9';
/** Characters that make `\[…\]` TeX rather than an escaped bracket like `\[1\]`. */
const TEX_HINT = /[\\^_={}]/;

interface Formula {
  /** Offsets of the whole formula, delimiters included. */
  start: number;
  end: number;
  tex: string;
  display: boolean;
}

/** Offset where the line holding `at` starts. */
function lineStart(text: string, at: number): number {
  return text.lastIndexOf('\n', at - 1) + 1;
}

/**
 * Forward searches over one text that remember their last answer: the scan only moves
 * forward, so each search reuses the previous one until passing it, and a text full of
 * unclosed delimiters is still read a bounded number of times rather than once per delimiter.
 */
class Finder {
  private readonly found = new Map<string, { from: number; at: number }>();
  private paragraph = { from: 0, end: -1 };
  constructor(readonly text: string) {}

  /** Offset of the next `token` at or after `from`, or -1. */
  next(token: string, from: number): number {
    const known = this.found.get(token);
    if (known && known.from <= from && (known.at < 0 || known.at >= from)) return known.at;
    const at = this.text.indexOf(token, from);
    this.found.set(token, { from, at });
    return at;
  }

  /** The end of the paragraph holding `from`: the next blank line, or the end of the text. */
  paragraphEnd(from: number): number {
    if (this.paragraph.from <= from && from <= this.paragraph.end) return this.paragraph.end;
    const blank = /\n[ \t>]*\n/g;
    blank.lastIndex = from;
    const match = blank.exec(this.text);
    this.paragraph = { from, end: match ? match.index : this.text.length };
    return this.paragraph.end;
  }
}

/** The formula opened by `$` at `i` (a single or a double dollar), or undefined when none closes. */
function dollarFormula(find: Finder, i: number): Formula | undefined {
  const text = find.text;
  const limit = find.paragraphEnd(i);
  if (text[i + 1] === '$') {
    const close = find.next('$$', i + 2);
    if (close >= 0 && (close < limit || opensLine(text, i))) {
      const tex = text.slice(i + 2, close);
      return tex.trim() === '' ? undefined : { start: i, end: close + 2, tex, display: true };
    }
    // An unclosed `$$` on a line of its own is a formula still being written: show it as one.
    const lineEnd = text.indexOf('\n', i);
    if (close < 0 && opensLine(text, i) && text.slice(i + 2, lineEnd < 0 ? text.length : lineEnd).trim() === '') {
      return { start: i, end: text.length, tex: text.slice(i + 2), display: true };
    }
    return undefined;
  }
  if (isSpace(text[i + 1])) return undefined;
  // The first `$` decides: a formula never holds one, so remark-math would close there too.
  const j = find.next('$', i + 1);
  if (j < 0 || j >= limit) return undefined;
  const tick = find.next('`', i + 1);
  if (tick >= 0 && tick < j) return undefined;
  if (isSpace(text[j - 1]) || text[j - 1] === '\\' || isDigit(text[j + 1]) || text[j + 1] === '$') return undefined;
  return { start: i, end: j + 1, tex: text.slice(i + 1, j), display: false };
}

/** The formula opened by `\(` or `\[` at `i`, or undefined when it does not close (or is an escaped bracket). */
function backslashFormula(find: Finder, i: number): Formula | undefined {
  const text = find.text;
  const display = text[i + 1] === '[';
  const close = find.next(display ? '\\]' : '\\)', i + 2);
  if (close < 0 || close > find.paragraphEnd(i)) return undefined;
  const tex = text.slice(i + 2, close);
  if (tex.trim() === '' || tex.includes('$') || tex.includes('`')) return undefined;
  // `\[1\]` and `\[note\]` are Markdown for literal brackets; a formula is spaced out or looks like TeX.
  if (display && !(isSpace(tex[0]) && isSpace(tex[tex.length - 1])) && !TEX_HINT.test(tex)) return undefined;
  return { start: i, end: close + 2, tex, display };
}

function opensLine(text: string, at: number): boolean {
  return LINE_OPENER.test(text.slice(lineStart(text, at), at));
}

/** How a line's continuation is written: its quote markers kept, anything else as spaces. */
function continuation(text: string, at: number): string {
  return text.slice(lineStart(text, at), at).replace(/[^>\t]/g, ' ');
}

/**
 * The formula in remark-math's dollar form. A display formula that opens its line becomes
 * a block (`$$` lines around it, so remark-math never reads the first line as the fence's
 * info and runs on to the end of the text); elsewhere it stays inline as `$$…$$`.
 */
function dollarForm(text: string, formula: Formula): string {
  const { tex, display, start, end } = formula;
  if (!display) return `$${tex}$`;
  if (!opensLine(text, start)) return `$$${tex}$$`;
  const indent = continuation(text, start);
  // Lines after the first already carry their own quote markers and indentation.
  const openAlone = /^[ \t]*\n/.test(tex);
  let body = openAlone ? tex.replace(/^[ \t]*/, '') : `\n${indent}${tex.trimStart()}`;
  if (/\n[ \t>]*$/.test(body)) body += '$$';
  else {
    body = body.trimEnd();
    const lastLine = body.slice(body.lastIndexOf('\n') + 1);
    body += `\n${(/^[ \t>]*/.exec(lastLine)?.[0] ?? '').replace(/[^>\t]/g, ' ')}$$`;
  }
  const lineEnd = text.indexOf('\n', end);
  const after = text.slice(end, lineEnd < 0 ? text.length : lineEnd);
  return `$$${body}${after.trim() === '' ? '' : `\n${indent}`}`;
}

type Visitor = (piece: { kind: 'text'; text: string; escapedDollar?: boolean } | { kind: 'code'; text: string } | { kind: 'math'; formula: Formula }) => void;

/**
 * One pass over `text`: fenced and indented code blocks and code spans are passed on untouched, formulas
 * found, and every other character is text (a `$` that opens no formula flagged, to be escaped).
 */
function scan(text: string, visit: Visitor): void {
  const find = new Finder(text);
  let fence: string | undefined;
  let i = 0;
  let plain = 0;
  const flush = (to: number) => {
    if (to > plain) visit({ kind: 'text', text: text.slice(plain, to) });
  };
  // Indented code: a line indented four columns after a blank line (or more such code), outside a list.
  let previousBlank = true;
  let previousCode = false;
  let inList = false;
  while (i < text.length) {
    const atLineStart = i === 0 || text[i - 1] === '\n';
    if (atLineStart) {
      const lineEnd = text.indexOf('\n', i) < 0 ? text.length : text.indexOf('\n', i) + 1;
      const line = text.slice(i, lineEnd);
      const marker = FENCE.exec(line)?.[1];
      const blank = line.trim() === '';
      const indented = /^( {4}|\t| {0,3}\t)/.test(line);
      const indentedCode: boolean = fence === undefined && !marker && !blank && indented && (previousBlank || previousCode) && !inList;
      if (LIST_ITEM.test(line)) inList = true;
      else if (!blank && !indented && previousBlank) inList = false;
      previousCode = indentedCode || (previousCode && blank);
      previousBlank = blank;
      if (indentedCode) {
        flush(i);
        visit({ kind: 'code', text: line });
        i = plain = lineEnd;
        continue;
      }
      if (fence !== undefined || marker) {
        if (fence === undefined) fence = marker;
        else if (
          marker &&
          marker[0] === fence[0] &&
          marker.length >= fence.length &&
          text
            .slice(i, lineEnd)
            .trim()
            .replace(/^[>\s]*/, '') === marker
        )
          fence = undefined;
        flush(i);
        visit({ kind: 'code', text: text.slice(i, lineEnd) });
        i = plain = lineEnd;
        continue;
      }
    }
    const ch = text[i];
    if (ch === '`') {
      let run = i;
      while (text[run] === '`') run++;
      const ticks = text.slice(i, run);
      const close = findTicks(text, run, ticks.length, find.paragraphEnd(i));
      if (close < 0) {
        i = run;
        continue;
      }
      flush(i);
      visit({ kind: 'code', text: text.slice(i, close + ticks.length) });
      i = plain = close + ticks.length;
      continue;
    }
    if (ch === '\\') {
      const next = text[i + 1];
      const formula = next === '(' || next === '[' ? backslashFormula(find, i) : undefined;
      if (formula) {
        flush(i);
        visit({ kind: 'math', formula });
        i = plain = formula.end;
      } else i += 2; // An escaped character (`\$`, `\\`) is never a delimiter.
      continue;
    }
    if (ch === '$') {
      const formula = dollarFormula(find, i);
      flush(i);
      if (formula) {
        visit({ kind: 'math', formula });
        i = plain = formula.end;
      } else {
        const run = text[i + 1] === '$' ? 2 : 1;
        visit({ kind: 'text', text: text.slice(i, i + run), escapedDollar: true });
        i = plain = i + run;
      }
      continue;
    }
    i++;
  }
  flush(text.length);
}

/** Offset of the next run of exactly `length` backticks from `from` before `limit`, or -1. */
function findTicks(text: string, from: number, length: number, limit: number): number {
  let j = from;
  while (j < limit) {
    const at = text.indexOf('`', j);
    if (at < 0 || at >= limit) return -1;
    let end = at;
    while (text[end] === '`') end++;
    if (end - at === length) return at;
    j = end;
  }
  return -1;
}

/** Quick test before the scan: text with no `$`, `\(` or `\[` holds no math. */
function mayHoldDelimiters(text: string): boolean {
  return text.includes('$') || text.includes('\\(') || text.includes('\\[');
}

/**
 * `text` rewritten for remark-math: formulas in dollar form (a display formula that opens
 * its line as a `$$` block), other dollars escaped, code untouched. When no formula is found
 * the text is returned unchanged and `hasMath` is false, so the caller need not load a math
 * renderer. Linear in the text's length.
 */
export function prepareMathMarkdown(text: string): MathMarkdown {
  if (!mayHoldDelimiters(text)) return { markdown: text, hasMath: false };
  const out: string[] = [];
  let hasMath = false;
  scan(text, (piece) => {
    if (piece.kind === 'math') {
      hasMath = true;
      out.push(dollarForm(text, piece.formula));
    } else if (piece.kind === 'text' && piece.escapedDollar) out.push(piece.text.replace(/\$/g, '\\$'));
    else out.push(piece.text);
  });
  return hasMath ? { markdown: out.join(''), hasMath } : { markdown: text, hasMath: false };
}

/** How many formulas `text` holds outside code (the same scan as {@link prepareMathMarkdown}). */
export function formulaCount(text: string): number {
  if (!mayHoldDelimiters(text)) return 0;
  let count = 0;
  scan(text, (piece) => {
    if (piece.kind === 'math') count++;
  });
  return count;
}

/** Whether `text` holds a formula outside code (the same scan as {@link prepareMathMarkdown}). */
export function hasMath(text: string): boolean {
  return prepareMathMarkdown(text).hasMath;
}

/**
 * `text` (shown as plain text, like a user's message) cut into words and formulas, in
 * order; joined back, the pieces hold the text's characters apart from the delimiters.
 * Code spans and fences stay text.
 */
export function mathSegments(text: string): MathSegment[] {
  const segments: MathSegment[] = [];
  const pushText = (piece: string) => {
    const last = segments[segments.length - 1];
    if (last?.kind === 'text') last.text += piece;
    else segments.push({ kind: 'text', text: piece });
  };
  if (!mayHoldDelimiters(text)) return text ? [{ kind: 'text', text }] : [];
  scan(text, (piece) => {
    if (piece.kind === 'math') segments.push({ kind: 'math', tex: piece.formula.tex.trim(), display: piece.formula.display });
    else pushText(piece.text);
  });
  return segments;
}
