import type { WindowMessage } from '../messages';
import { imageTokens } from '../images';
import { countedParts } from './countedText';

// A script-aware token estimator for BPE tokenizers of the o200k family.
//
// chars/4 is right only for English prose. Chinese, Japanese and Korean run at about
// 1.5–2.5 characters per token, code and JSON at 2–4.5, so chars/4 under-counts them
// by 20–50 % and a window planned with it overflows. Exact tokenizers are hundreds of
// kilobytes of vocabulary, so the default estimate mimics how the tokenizer splits text
// instead: one pass over the UTF-16 code units follows o200k's pre-tokenizer (letter
// runs split at lower→upper case changes, a single space or punctuation mark glued to
// the next word, digits in groups of three, runs of punctuation, indentation and line
// breaks as one piece each) and counts pieces by class. Each class has a weight, the
// average tokens per piece; the estimate is the weighted sum.
//
// The weights were fitted by least squares on relative error against exact o200k
// counts of 1,500-character pieces of English docs, TypeScript sources and .d.ts files,
// Anthropic API JSON, and Japanese, Chinese and Korean docs, each kind weighted equally.
// test/bench/estimator.bench.ts measures the result on text that ships with the installed
// packages (a different sample from the fit), and test/core/tokens pins it.

/** Piece classes the scan counts; each has one weight in WEIGHTS. */
const enum F {
  /** ASCII/Latin word pieces of length 1..16 (16 = 16 or longer): indexes 0..15. */
  Word1 = 0,
  /** Letters beyond the 16th in a long word piece. */
  WordExtraChar = 16,
  /** All-capital word pieces of 2+ letters (acronyms, constants, base64), added to Word*. */
  CapsWord = 17,
  /** Accented Latin letters, added to the word piece they belong to. */
  LatinExtChar = 18,
  CyrillicChar = 19,
  CyrillicRun = 20,
  HanChar = 21,
  KanaChar = 22,
  HangulChar = 23,
  /** One per run of CJK letters (Han, kana, Hangul mixed). */
  CjkRun = 24,
  OtherLetterChar = 25,
  OtherLetterRun = 26,
  DigitGroup = 27,
  /** ASCII punctuation runs of length 1..4: indexes 28..31. */
  Punct1 = 28,
  PunctLongRun = 32,
  PunctExtraChar = 33,
  /** Non-ASCII symbols: CJK and full-width punctuation, typographic quotes, emoji. */
  WideSymbol = 34,
  SpaceRun = 35,
  NewlineRun = 36,
  /** Characters of base64-like runs (ids, keys, inline images), priced per character. */
  OpaqueChar = 37,
  Count = 38,
}

/** Tokens per piece of each class, in F's order. */
const WEIGHTS = new Float64Array([
  // Word pieces of length 1..16
  1.1,
  0.96,
  1.07,
  0.93,
  1.09,
  1.27,
  1.1,
  1.04,
  1.34,
  1.29,
  1.26,
  1.45,
  1.79,
  1.91,
  2.2,
  2.66,
  0.54, // WordExtraChar
  0.16, // CapsWord
  0.53, // LatinExtChar
  0.16, // CyrillicChar
  0.55, // CyrillicRun
  0.71, // HanChar
  0.69, // KanaChar
  0.6, // HangulChar
  0.43, // CjkRun
  0.6, // OtherLetterChar
  0.5, // OtherLetterRun
  1.28, // DigitGroup
  0.91,
  1.17,
  1.61,
  1.21, // Punct1..4
  1.78, // PunctLongRun
  0, // PunctExtraChar
  0.79, // WideSymbol
  0.84, // SpaceRun
  0.91, // NewlineRun
  0.68, // OpaqueChar
]);

// Character classes of UTF-16 code units.
const enum C {
  Symbol = 0,
  Lower = 1,
  Upper = 2,
  Digit = 3,
  Space = 4,
  Newline = 5,
  Punct = 6,
  LatinExt = 7,
  Cyrillic = 8,
  Han = 9,
  Kana = 10,
  Hangul = 11,
  OtherLetter = 12,
  /** A high surrogate of CJK extensions B–F: one Han character with the unit after it. */
  HanPair = 13,
  /** Past the end of the text. */
  End = 14,
}

const ASCII_CLASS = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  let cls: C = C.Punct;
  if (code >= 97 && code <= 122) cls = C.Lower;
  else if (code >= 65 && code <= 90) cls = C.Upper;
  else if (code >= 48 && code <= 57) cls = C.Digit;
  else if (code === 10 || code === 13) cls = C.Newline;
  else if (code === 32 || code === 9 || code === 11 || code === 12) cls = C.Space;
  else if (code < 32 || code === 127) cls = C.Space;
  ASCII_CLASS[code] = cls;
}

function classOfCode(code: number): C {
  if (code < 128) return ASCII_CLASS[code] as C;
  if (code >= 0x4e00 && code <= 0x9fff) return C.Han;
  if (code >= 0xac00 && code <= 0xd7af) return C.Hangul;
  if (code >= 0x3040 && code <= 0x30ff) return code === 0x30fb ? C.Symbol : C.Kana;
  if (code >= 0xd840 && code <= 0xd87f) return C.HanPair;
  if (code >= 0xc0 && code <= 0x24f) return code === 0xd7 || code === 0xf7 ? C.Symbol : C.LatinExt;
  if (code >= 0x400 && code <= 0x52f) return C.Cyrillic;
  if (code >= 0x3400 && code <= 0x4dbf) return C.Han;
  if (code >= 0xf900 && code <= 0xfaff) return C.Han;
  if (code === 0x3005) return C.Han;
  if ((code >= 0x1100 && code <= 0x11ff) || (code >= 0x3130 && code <= 0x318f)) return C.Hangul;
  if ((code >= 0x31f0 && code <= 0x31ff) || (code >= 0xff66 && code <= 0xff9f)) return C.Kana;
  if (code >= 0x1e00 && code <= 0x1eff) return C.LatinExt;
  if (code === 0xa0 || code === 0x3000 || (code >= 0x2000 && code <= 0x200a) || code === 0x202f || code === 0x2028 || code === 0x2029) return C.Space;
  if (
    (code >= 0x370 && code <= 0x3ff) || // Greek
    (code >= 0x530 && code <= 0x6ff) || // Armenian, Hebrew, Arabic
    (code >= 0x900 && code <= 0xeff) || // Indic scripts, Thai, Lao
    (code >= 0x10a0 && code <= 0x10ff) || // Georgian
    (code >= 0xff21 && code <= 0xff3a) ||
    (code >= 0xff41 && code <= 0xff5a) // full-width Latin
  ) {
    return C.OtherLetter;
  }
  return C.Symbol;
}

// One byte per UTF-16 code unit, so the scan does a table read per character.
const CLASS_TABLE = new Uint8Array(0x10000);
for (let code = 0; code < 0x10000; code++) CLASS_TABLE[code] = classOfCode(code);

/** The class of the code unit at `i`, or End past the text. */
function classAt(text: string, i: number): C {
  return i < text.length ? (CLASS_TABLE[text.charCodeAt(i)] as C) : C.End;
}

function isLetter(cls: C): boolean {
  return cls === C.Lower || cls === C.Upper || (cls >= C.LatinExt && cls <= C.HanPair);
}

/**
 * Adds the piece counts of `text` to `counts` (length F.Count). Follows o200k's
 * pre-tokenizer closely enough that every piece is one token on average, except long
 * words and CJK runs, whose length the weights price.
 *
 * This runs on every message of a conversation when it is first planned, so it reads
 * each code unit once: every loop leaves the class of the unit it stopped at in `c` for
 * the next piece, instead of looking it up again.
 */
function countPieces(text: string, counts: Float64Array): void {
  const n = text.length;
  let i = 0;
  let c = classAt(text, 0);
  // End of the last run already found not to be opaque, so no run is scanned twice.
  let plainUntil = 0;
  // Per-character counts, kept in locals while the loops run.
  let latinExtChars = 0;
  let hanChars = 0;
  let kanaChars = 0;
  let hangulChars = 0;
  while (i < n) {
    // A piece starts at i, and c is its class.
    if (c === C.Lower || c === C.Upper || c === C.Digit) {
      if (i >= plainUntil) {
        // Cheap rejection first: an opaque run needs OPAQUE_MIN_LENGTH dense characters,
        // and a non-dense one inside that span rules out every start before it.
        let j = i + OPAQUE_MIN_LENGTH - 1;
        if (j >= n) plainUntil = n;
        else {
          while (j > i && isDense(text.charCodeAt(j))) j--;
          if (j > i) plainUntil = j + 1;
          else {
            const end = opaqueRunEnd(text, i);
            if (end >= 0) {
              counts[F.OpaqueChar]! += end - i;
              i = end;
              c = classAt(text, i);
              continue;
            }
            plainUntil = -end;
          }
        }
      }
      if (c === C.Digit) {
        const start = i;
        do c = classAt(text, ++i);
        while (c === C.Digit);
        counts[F.DigitGroup]! += Math.ceil((i - start) / 3);
        continue;
      }
      // Falls through to the run of letters.
    } else if (c === C.Space) {
      const start = i;
      do c = classAt(text, ++i);
      while (c === C.Space);
      if (c === C.End) counts[F.SpaceRun]! += 1;
      else if (c === C.Newline) {
        // The spaces join the line break's piece.
      } else if (c === C.Digit) counts[F.SpaceRun]! += i - start > 1 ? 2 : 1;
      else if (i - start > 1) counts[F.SpaceRun]! += 1; // the last space joins the next piece
      continue;
    } else if (c === C.Newline) {
      // Whitespace up to and including the last line break is one piece.
      let lastBreak = i;
      do {
        c = classAt(text, ++i);
        if (c === C.Newline) lastBreak = i;
      } while (c === C.Newline || c === C.Space);
      counts[F.NewlineRun]! += 1;
      // Spaces after the last break start the next piece.
      if (lastBreak + 1 < i) c = C.Space;
      i = lastBreak + 1;
      continue;
    } else if (c === C.Punct || c === C.Symbol) {
      // A run of punctuation and symbols; a leading space was already left to it.
      const start = i;
      let ascii = 0;
      let lastWasAscii = false;
      for (;;) {
        if (c === C.Punct) {
          ascii++;
          lastWasAscii = true;
          i++;
        } else if (c === C.Symbol) {
          if (ascii > 0) addPunct(counts, ascii);
          ascii = 0;
          lastWasAscii = false;
          // A surrogate pair (emoji) is one symbol.
          const code = text.charCodeAt(i);
          i += code >= 0xd800 && code <= 0xdbff && i + 1 < n ? 2 : 1;
          counts[F.WideSymbol]! += 1;
        } else break;
        c = classAt(text, i);
      }
      // A lone mark right before a word is part of the word's piece (".length", "_id", "'s").
      if (i - start === 1 && lastWasAscii && isLetter(c) && !(start > 0 && classAt(text, start - 1) === C.Space)) ascii = 0;
      if (ascii > 0) addPunct(counts, ascii);
      // Line breaks right after punctuation belong to its piece.
      while (c === C.Newline) c = classAt(text, ++i);
      continue;
    }
    // A run of letters, split where the script changes and at lower→upper case changes.
    for (;;) {
      if (c === C.Lower || c === C.Upper || c === C.LatinExt) {
        const wordStart = i;
        // Leading capitals, then lower-case letters; a capital after a lower-case letter
        // starts the next piece (camelCase).
        while (c === C.Upper) c = classAt(text, ++i);
        const caps = i - wordStart >= 2 && c !== C.Lower && c !== C.LatinExt;
        for (;;) {
          if (c === C.Lower) c = classAt(text, ++i);
          else if (c === C.LatinExt) {
            latinExtChars++;
            c = classAt(text, ++i);
          } else break;
        }
        const length = i - wordStart;
        if (length <= 16) counts[F.Word1 + length - 1]! += 1;
        else {
          counts[F.Word1 + 15]! += 1;
          counts[F.WordExtraChar]! += length - 16;
        }
        if (caps) counts[F.CapsWord]! += 1;
      } else if (c === C.Han || c === C.Kana || c === C.Hangul || c === C.HanPair) {
        for (;;) {
          if (c === C.Han) {
            hanChars++;
            i++;
          } else if (c === C.Kana) {
            kanaChars++;
            i++;
          } else if (c === C.Hangul) {
            hangulChars++;
            i++;
          } else if (c === C.HanPair) {
            hanChars++;
            i += i + 1 < n ? 2 : 1;
          } else break;
          c = classAt(text, i);
        }
        counts[F.CjkRun]! += 1;
      } else if (c === C.Cyrillic || c === C.OtherLetter) {
        const script: C = c;
        const start = i;
        do c = classAt(text, ++i);
        while (c === script);
        const cyrillic = script === C.Cyrillic;
        counts[cyrillic ? F.CyrillicChar : F.OtherLetterChar]! += i - start;
        counts[cyrillic ? F.CyrillicRun : F.OtherLetterRun]! += 1;
      } else break;
    }
  }
  counts[F.LatinExtChar]! += latinExtChars;
  counts[F.HanChar]! += hanChars;
  counts[F.KanaChar]! += kanaChars;
  counts[F.HangulChar]! += hangulChars;
}

const OPAQUE_MIN_LENGTH = 24;

/** Characters of base64, standard and URL-safe. */
const DENSE = new Uint8Array(128);
for (let code = 0; code < 128; code++) {
  DENSE[code] = /[A-Za-z0-9+/=_-]/.test(String.fromCharCode(code)) ? 1 : 0;
}

function isDense(code: number): boolean {
  return code < 128 && DENSE[code] === 1;
}

/**
 * Base64 (inline images, ids, keys) tokenizes at about 1.5 characters per token, far
 * from words. It is told from identifiers such as `CanvasRenderingContext2D` by how often
 * the kind of character (upper, lower, digit, sign) changes: about 2 in 3 neighbours in
 * random base64, under 1 in 3 in camelCase. (Hex needs no rule: its letter/digit
 * alternation already splits it into pieces of about the right count.) Returns the end
 * of the run of dense characters starting at `start` if it is opaque, else minus its end.
 */
function opaqueRunEnd(text: string, start: number): number {
  const n = text.length;
  let i = start;
  let digits = 0;
  let upper = 0;
  let switches = 0;
  let prevKind = -1;
  while (i < n) {
    const code = text.charCodeAt(i);
    let kind: number;
    if (code >= 48 && code <= 57) {
      kind = 0;
      digits++;
    } else if (code >= 97 && code <= 122) {
      kind = 1;
    } else if (code >= 65 && code <= 90) {
      kind = 2;
      upper++;
    } else if (code === 43 || code === 47 || code === 61 || code === 95 || code === 45) {
      kind = 3; // + / = _ -
    } else break;
    if (prevKind >= 0 && kind !== prevKind) switches++;
    prevKind = kind;
    i++;
  }
  const length = i - start;
  return length >= OPAQUE_MIN_LENGTH && digits > 0 && upper > 0 && switches * 2 >= length ? i : -i;
}

function addPunct(counts: Float64Array, length: number): void {
  if (length <= 4) counts[F.Punct1 + length - 1]! += 1;
  else {
    counts[F.PunctLongRun]! += 1;
    counts[F.PunctExtraChar]! += length - 4;
  }
}

const scratch = new Float64Array(F.Count);

/**
 * Estimated o200k tokens of a plain text, without any message overhead. A whole number
 * ≥ 0; 0 only for the empty string. Fitted so the median error per 1,500-character
 * piece stays under 10 % for English prose, code, JSON, Japanese, Chinese and Korean
 * (see test/bench/estimator.bench.ts for the measured median and p95).
 */
export function estimateTextTokens(text: string): number {
  if (text.length === 0) return 0;
  scratch.fill(0);
  countPieces(text, scratch);
  let total = 0;
  for (let k = 0; k < F.Count; k++) total += scratch[k]! * WEIGHTS[k]!;
  return Math.max(1, Math.round(total));
}

/**
 * Tokens a chat format spends on each message besides its text: OpenAI documents 3
 * (`<|start|>`, the role/content separator, `<|end|>`) plus the role's own token. Anthropic
 * does not document its framing; calibration absorbs the difference.
 */
export const MESSAGE_OVERHEAD_TOKENS = 4;

/** Extra framing tokens per tool call, on top of its name and JSON arguments (OpenAI: 3). */
export const TOOL_CALL_OVERHEAD_TOKENS = 3;

/**
 * Tokens charged per image or binary document whose size the message does not reveal (an
 * image Windowpane attached carries its pixels and is priced by its provider's formula).
 * Anthropic's standard tier costs at most 1,568 tokens per image, so this errs high for
 * smaller images.
 */
export const ATTACHMENT_TOKENS = 1600;

/**
 * The default per-message counter: the script-aware text estimate of everything the
 * model reads in the message (text, tool names and arguments, tool results, thinking),
 * plus MESSAGE_OVERHEAD_TOKENS, TOOL_CALL_OVERHEAD_TOKENS per tool call and
 * ATTACHMENT_TOKENS per image or document of unknown size (an image Windowpane attached
 * counts as its provider counts it, from its pixels: see `imageTokens`; a PDF from its pages: see `pdfTokens`). Pure; cache it with `createCountCache`.
 */
export function estimateMessageTokens(message: WindowMessage): number {
  const { content } = message;
  if (typeof content === 'string' && message.tool_calls == null && message.reasoning == null) {
    return MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(content);
  }
  const parts = countedParts(message);
  let total = MESSAGE_OVERHEAD_TOKENS + parts.toolCalls * TOOL_CALL_OVERHEAD_TOKENS + parts.attachments * ATTACHMENT_TOKENS;
  for (const text of parts.texts) total += estimateTextTokens(text);
  for (const image of parts.images) total += imageTokens(image.shape, image.width, image.height, image.model);
  return total + parts.pdfTokens + parts.reasoningTokens;
}
