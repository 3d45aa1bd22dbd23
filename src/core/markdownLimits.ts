import { formulaCount } from './mathText';

/**
 * Limits past which a message is shown as plain text instead of Markdown.
 *
 * Markdown parsing is fast on what people and models write but not on every input: nested
 * containers recurse once per level (6,000 `>` overflow the stack), runs of emphasis
 * delimiters and of `[` are matched against each other in quadratic time (100 KB of `*_`
 * takes over a minute), and a long table or a megabyte line takes seconds. A message is
 * outside the limits when one linear scan finds any of these past its bound; each bound
 * keeps the worst case near 150 ms in Chromium while staying far above ordinary answers
 * (formulas, drawn by KaTeX, are bounded higher: an answer may well hold a hundred).
 */
export const MARKDOWN_LIMITS = {
  /** Characters; ordinary answers are a few thousand, 50,000 is about 12,000 tokens. */
  maxChars: 50_000,
  /** Lines that start with `|` outside code blocks: table rows, which cost most per character. */
  maxTableRows: 2_000,
  /** `|` characters on those lines: cells, so a few rows thousands of columns wide count too. */
  maxTableCells: 10_000,
  /** Nested containers (block quotes and list items) on one line. */
  maxDepth: 32,
  /** Runs of `*`, `_` or `~` that could open or close emphasis (not inside a word). */
  maxEmphasisRuns: 3_000,
  /** `[` characters: each may start a link. */
  maxBrackets: 3_000,
  /** Formulas (see mathText.ts): KaTeX takes a millisecond or two for each, a 50-formula answer about 100 ms in Chromium. */
  maxFormulas: 200,
} as const;

const isWordChar = (code: number) => (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
const isDelimiter = (code: number) => code === 42 /* * */ || code === 95 /* _ */ || code === 126; /* ~ */

/** How many containers open at the start of `line`: `>` markers, list markers, and the indentation before a marker. */
function containerDepth(line: string): number {
  let depth = 0;
  let spaces = 0;
  let i = 0;
  while (i < line.length) {
    const ch = line[i]!;
    if (ch === ' ' || ch === '\t') {
      spaces += ch === '\t' ? 4 : 1;
      i++;
    } else if (ch === '>') {
      depth++;
      i++;
    } else if ((ch === '-' || ch === '*' || ch === '+') && (i + 1 === line.length || line[i + 1] === ' ' || line[i + 1] === '\t')) {
      depth++;
      i++;
    } else {
      let j = i;
      while (j < line.length && j - i < 9 && line.charCodeAt(j) >= 48 && line.charCodeAt(j) <= 57) j++;
      if (j > i && (line[j] === '.' || line[j] === ')') && (j + 1 === line.length || line[j + 1] === ' ')) {
        depth++;
        i = j + 1;
      } else break;
    }
  }
  // Indentation nests list items only when a marker follows it; two columns a level.
  return depth === 0 ? 0 : depth + Math.floor(spaces / 2);
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/**
 * Why `text` should be shown as plain text rather than rendered as Markdown, or undefined
 * when it is within MARKDOWN_LIMITS. One pass over the text; code fences are skipped for
 * the nesting, emphasis and bracket counts, since their content is never parsed.
 */
export function markdownLimitExceeded(text: string): string | undefined {
  const limits = MARKDOWN_LIMITS;
  if (text.length > limits.maxChars) return `it is longer than ${limits.maxChars.toLocaleString('en-US')} characters`;
  const lines = text.split('\n');
  let tableRows = 0;
  let tableCells = 0;
  let fence: string | undefined;
  let emphasisRuns = 0;
  let brackets = 0;
  for (const line of lines) {
    const marker = FENCE.exec(line)?.[1];
    if (fence !== undefined) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = undefined;
      continue;
    }
    if (marker) {
      fence = marker;
      continue;
    }
    if (containerDepth(line) > limits.maxDepth) return `it nests more than ${limits.maxDepth} quotes or lists`;
    if (line.trimStart().startsWith('|')) {
      if (++tableRows > limits.maxTableRows) return `it has more than ${limits.maxTableRows.toLocaleString('en-US')} table rows`;
      tableCells += line.split('|').length - 1;
      if (tableCells > limits.maxTableCells) return `it has more than ${limits.maxTableCells.toLocaleString('en-US')} table cells`;
    }
    for (let i = 0; i < line.length; i++) {
      const code = line.charCodeAt(i);
      if (code === 91 /* [ */) brackets++;
      else if (isDelimiter(code)) {
        let end = i;
        while (end + 1 < line.length && line.charCodeAt(end + 1) === code) end++;
        const inWord = i > 0 && isWordChar(line.charCodeAt(i - 1)) && end + 1 < line.length && isWordChar(line.charCodeAt(end + 1));
        if (!inWord) emphasisRuns++;
        i = end;
      }
    }
  }
  if (emphasisRuns > limits.maxEmphasisRuns) return `it has more than ${limits.maxEmphasisRuns.toLocaleString('en-US')} emphasis marks`;
  if (brackets > limits.maxBrackets) return `it has more than ${limits.maxBrackets.toLocaleString('en-US')} brackets`;
  if (formulaCount(text) > limits.maxFormulas) return `it has more than ${limits.maxFormulas} formulas`;
  return undefined;
}
