/**
 * Text as full-text search sees it: words found in any script, folded so that case and
 * accents never decide a match ("Crème" is found by "creme", "CRÈME" and "crè").
 */

/** One word of a text: the word as written and where it starts (UTF-16 index into the text). */
export interface SearchWord {
  word: string;
  index: number;
}

/** The part of `Intl.Segmenter` the tokenizer uses; pass `null` to use the fallback. */
export type WordSegmenter = { segment(text: string): Iterable<{ segment: string; index: number; isWordLike?: boolean }> };

// Scripts written without spaces between words (Hangul, spaced, is cut like them when there
// is no segmenter): text without them needs no segmenter, and without one their runs are
// indexed as bigrams.
const UNSPACED = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const WORD_RUN = /[\p{L}\p{N}\p{M}]+/gu;
const UNSPACED_RUN =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}\u30FC]+/gu;

const ASCII = /^[ -~]*$/;

let platformSegmenter: WordSegmenter | null | undefined;

/** The platform's word segmenter (locale-independent rules), or null where `Intl.Segmenter` is missing. */
function defaultSegmenter(): WordSegmenter | null {
  if (platformSegmenter === undefined) {
    platformSegmenter = typeof Intl !== 'undefined' && typeof Intl.Segmenter === 'function' ? new Intl.Segmenter(undefined, { granularity: 'word' }) : null;
  }
  return platformSegmenter;
}

/**
 * Folds a word for comparison: compatibility decomposition (NFKD, so "ﬁ" is "fi" and
 * full-width "Ａ" is "a"), combining marks removed ("é" → "e"), recomposed (NFC, so a
 * Hangul syllable stays one character), then lower case. Pure; the result may be shorter
 * or longer than the input, so never index the input with it.
 */
export function foldText(text: string): string {
  // Most words are printable ASCII, where folding is lower-casing: skip the normalizations.
  if (ASCII.test(text)) return text.toLowerCase();
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .normalize('NFC')
    .toLowerCase();
}

/**
 * The words of `text` in order, as written (fold them with `foldText`). With a segmenter
 * (default: `Intl.Segmenter` with granularity "word") the words are the word-like
 * segments, so Japanese and Chinese yield dictionary words, each cut at punctuation inside
 * it ("app.config_v2" is "app", "config", "v2"). Without one, words are runs of letters,
 * digits and marks, and each run of an unspaced script (Han, kana, Hangul, Thai) is cut into
 * overlapping two-character bigrams (a lone character stays itself), so a query cut the
 * same way still finds it.
 */
export function searchWords(text: string, segmenter: WordSegmenter | null = defaultSegmenter()): SearchWord[] {
  return [...eachWord(text, segmenter)];
}

/** The words of `searchWords`, one at a time, so a caller that finds what it wants stops segmenting there. */
function* eachWord(text: string, segmenter: WordSegmenter | null): Generator<SearchWord> {
  // Text in spaced scripts only has the same words either way, and runs of letters are found many times faster.
  if (segmenter && UNSPACED.test(text)) {
    for (const s of segmenter.segment(text)) {
      if (!s.isWordLike) continue;
      // The segmenter keeps "file.ts", "snake_case" and "s’il" whole; each part is a word to search by.
      for (const part of s.segment.matchAll(WORD_RUN)) yield { word: part[0], index: s.index + part.index };
    }
    return;
  }
  for (const run of text.matchAll(WORD_RUN)) {
    if (!UNSPACED.test(run[0])) {
      yield { word: run[0], index: run.index };
      continue;
    }
    // A mixed run ("Tokyo東京") keeps its spaced parts whole and cuts the unspaced ones.
    let last = 0;
    for (const part of run[0].matchAll(UNSPACED_RUN)) {
      if (part.index > last) yield { word: run[0].slice(last, part.index), index: run.index + last };
      yield* bigrams(part[0], run.index + part.index);
      last = part.index + part[0].length;
    }
    if (last < run[0].length) yield { word: run[0].slice(last), index: run.index + last };
  }
}

function bigrams(run: string, index: number): SearchWord[] {
  const chars = Array.from(run);
  if (chars.length < 2) return [{ word: run, index }];
  const out: SearchWord[] = [];
  let offset = 0;
  for (let i = 0; i + 1 < chars.length; i++) {
    out.push({ word: chars[i]! + chars[i + 1]!, index: index + offset });
    offset += chars[i]!.length;
  }
  return out;
}

/** The words of `searchWords` without their places: what an index is given, found faster in spaced scripts. */
export function searchTokens(text: string, segmenter: WordSegmenter | null = defaultSegmenter()): string[] {
  if (!UNSPACED.test(text)) return text.match(WORD_RUN) ?? [];
  return searchWords(text, segmenter).map((w) => w.word);
}

/** The folded search terms of `text`, in order, duplicates kept: what an index stores for it. */
export function searchTerms(text: string, segmenter?: WordSegmenter | null): string[] {
  return searchTokens(text, segmenter).map(foldText);
}

/** A piece of a text around a match, and where the match is in that piece (for highlighting). */
export interface SearchSnippet {
  /** Whitespace collapsed; "…" marks text cut at either end. */
  snippet: string;
  /** UTF-16 offset of the match in `snippet`; absent when no word of the text matches a term. */
  matchStart?: number;
  matchLength?: number;
}

/** Characters shown before the match, and in all (ellipses aside). */
export const SNIPPET_BEFORE = 40;
export const SNIPPET_LENGTH = 160;

/**
 * About 160 characters of `text` around its first word that begins with one of the folded
 * `terms` (as `foldText` makes them), with that match's place in the snippet. The match
 * covers the term's length when folding kept the word's length, else the whole word. No
 * match: the start of the text, without a range.
 */
export function searchSnippet(text: string, terms: readonly string[], segmenter?: WordSegmenter | null): SearchSnippet {
  const flat = text.replace(/\s+/g, ' ').trim();
  let at = -1;
  let length = 0;
  const wanted = terms.filter((t) => t !== '');
  for (const { word, index } of wanted.length > 0 ? eachWord(flat, segmenter === undefined ? defaultSegmenter() : segmenter) : []) {
    const folded = foldText(word);
    const term = wanted.find((t) => folded.startsWith(t));
    if (term === undefined) continue;
    at = index;
    length = folded.length === word.length ? term.length : word.length;
    break;
  }
  const start = Math.max(0, Math.max(at, 0) - SNIPPET_BEFORE);
  const end = Math.min(flat.length, start + SNIPPET_LENGTH);
  const lead = start > 0 ? '…' : '';
  const result: SearchSnippet = { snippet: `${lead}${flat.slice(start, end)}${end < flat.length ? '…' : ''}` };
  if (at >= 0) {
    result.matchStart = at - start + lead.length;
    result.matchLength = Math.min(length, end - at);
  }
  return result;
}
