// Image token estimates against the providers' documented formulas (`npm run bench imageTokens`).
//
// (a) The core's formulas against every worked example the providers' pages give (Anthropic
// "Vision" and "Coordinates and bounding boxes", OpenAI "Images and vision"): the error must be 0.
// (b) What the app estimated for an image before the formulas: chars/4 of the content block's
// JSON (`chars4`, through `contentChars`, the rule of count, truncate and two-tier), which for an
// image is its base64 text, and the default estimator's flat ATTACHMENT_TOKENS per image (plus
// the message's framing), against the
// documented count on Claude Sonnet 4.6 (standard tier), Claude Opus 4.7 (high-resolution tier)
// and GPT-4o (`detail: high`), on images
// generated here as real PNGs (a minimal encoder over node:zlib): "photos" (a gradient with
// noise, which compresses badly) and "screenshots" (flat colour and text-like stripes, which
// compress well), at the sizes people attach. Ratio = chars/4 ÷ the documented count.
// (c) PDFs: what the planner counts for a PDF as it goes on the wire (a document block, an
// OpenAI file part, or its text) against the documented per-page rule (`pdfTokens`: each
// page's text plus, sent as the file, one page image), and the flat ATTACHMENT_TOKENS the
// default estimator charged any document before, for text-heavy and scanned PDFs.
// (d) Time per estimate of the formulas and of chars/4 on the image's block, against the text
// estimator on a 1,500-character message (the baseline).
import { deflateSync } from 'node:zlib';
import {
  anthropicImageFit,
  anthropicImageTokens,
  ATTACHMENT_TOKENS,
  chars4,
  documentWireBlock,
  estimateMessageTokens,
  MESSAGE_OVERHEAD_TOKENS,
  openAiImageFit,
  openAiImageTokens,
  pdfTokens,
  type DocumentBlock,
  type WindowMessage,
} from '../../src/core';
import { pngChunk } from '../fake-api/mediaFixtures';
import { fmtMs, fmtRatio, medianMs, type Row } from './harness';

export const title = 'image token estimates vs the documented formulas (ratio = estimate ÷ documented tokens; times against the text estimator)';

type Kind = 'photo' | 'screenshot';

/** A real RGB PNG, filter 0 on every row, deflated at zlib's default level as most encoders do. */
function encodePng(width: number, height: number, kind: Kind): Buffer {
  const row = 1 + width * 3;
  const raw = Buffer.alloc(row * height);
  let seed = 12345;
  for (let y = 0; y < height; y++) {
    const start = y * row;
    for (let x = 0; x < width; x++) {
      const at = start + 1 + x * 3;
      if (kind === 'photo') {
        seed = (seed * 1103515245 + 12345) >>> 0;
        const noise = (seed >>> 24) % 24;
        raw[at] = ((x * 255) / width + noise) & 255;
        raw[at + 1] = ((y * 255) / height + noise) & 255;
        raw[at + 2] = (128 + noise * 2) & 255;
      } else {
        const line = y % 24 < 12 && x % 90 < 70 && x > 40 && x < width - 40;
        const shade = line && (x * 7 + y) % 5 !== 0 ? 40 : y < 60 ? 230 : 255;
        raw[at] = shade;
        raw[at + 1] = shade;
        raw[at + 2] = y < 60 ? 240 : shade;
      }
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', ihdr),
    pngChunk('IDAT', deflateSync(raw)),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

const IMAGES: ReadonlyArray<[Kind, number, number]> = [
  ['screenshot', 200, 200],
  ['photo', 640, 480],
  ['screenshot', 1280, 800],
  ['photo', 1920, 1080],
  ['screenshot', 1170, 2532],
  ['screenshot', 2560, 1600],
  ['screenshot', 1440, 6000],
  ['photo', 3024, 4032],
];

const CLAUDE = 'claude-sonnet-4-6';
const HIGH_RES = 'claude-opus-4-7';
const GPT = 'gpt-4o';

/** The providers' own worked examples: [what, the core's answer, the page's answer]. */
function documentedExamples(): Array<[string, number, number]> {
  const a = (w: number, h: number, model: string) => anthropicImageTokens(w, h, model);
  const fitA = anthropicImageFit(1075, 1520, CLAUDE);
  const fitO = openAiImageFit(1800, 2400, 'high', 'gpt-5-mini');
  return [
    ['Claude 200×200', a(200, 200, CLAUDE), 64],
    ['Claude 1000×1000', a(1000, 1000, CLAUDE), 1296],
    ['Claude 1092×1092', a(1092, 1092, CLAUDE), 1521],
    ['Claude 1920×1080 standard', a(1920, 1080, CLAUDE), 1560],
    ['Claude 1920×1080 high-res', a(1920, 1080, HIGH_RES), 2691],
    ['Claude 2000×1500 standard', a(2000, 1500, CLAUDE), 1564],
    ['Claude 2000×1500 high-res', a(2000, 1500, HIGH_RES), 3888],
    ['Claude 3840×2160 standard', a(3840, 2160, CLAUDE), 1560],
    ['Claude 3840×2160 high-res', a(3840, 2160, HIGH_RES), 4784],
    ['Claude A4 scan resized width', fitA.width, 924],
    ['Claude A4 scan resized height', fitA.height, 1307],
    ['GPT-4o 1024×1024 high', openAiImageTokens(1024, 1024, 'high', GPT), 765],
    ['GPT-4o 2048×4096 high', openAiImageTokens(2048, 4096, 'high', GPT), 1105],
    ['GPT-4o 4096×8192 low', openAiImageTokens(4096, 8192, 'low', GPT), 85],
    ['patches 1024×1024', openAiImageTokens(1024, 1024, 'high', 'gpt-5.2'), 1024],
    ['patches 1800×2400', openAiImageTokens(1800, 2400, 'high', 'gpt-5.2'), 1452],
    ['patches 1800×2400 resized width', fitO.width, 1056],
    ['patches 1800×2400 resized height', fitO.height, 1408],
  ];
}

/** PDFs people attach: pages, text tokens per page, and what kind. */
const PDFS: Array<[number, number, string]> = [
  [1, 450, 'text-heavy'],
  [12, 450, 'text-heavy'],
  [100, 450, 'text-heavy'],
  [12, 20, 'scanned'],
];

const fmtInt = (n: number) => Math.round(n).toLocaleString('en-US');
const documented = (claude: number, opus: number, gpt: number) => `documented: Sonnet 4.6 ${fmtInt(claude)}, Opus 4.7 ${fmtInt(opus)}, GPT-4o ${fmtInt(gpt)}`;
const fmtBytes = (n: number) => (n >= 1024 * 1024 ? `${(n / 1024 / 1024).toFixed(1)} MB` : `${(n / 1024).toFixed(0)} KB`);

export async function run(): Promise<Row[]> {
  const rows: Row[] = [];

  const examples = documentedExamples();
  const worst = Math.max(...examples.map(([, got, want]) => Math.abs(got - want)));
  const off = examples.filter(([, got, want]) => got !== want).map(([what]) => what);
  rows.push({
    benchmark: 'formula vs docs',
    case: `${examples.length} worked examples (Anthropic 11, OpenAI 7)`,
    value: `largest error ${worst}${off.length > 0 ? ` (${off.join(', ')})` : ''}`,
    baseline: 'the pages’ own numbers',
    ratio: worst === 0 ? 'exact' : 'OFF',
  });

  const messages: WindowMessage[] = [];
  for (const [kind, width, height] of IMAGES) {
    const png = encodePng(width, height, kind);
    const data = png.toString('base64');
    const claudeBlock: WindowMessage = { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }] };
    const gptPart: WindowMessage = { role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${data}` } }] };
    messages.push(claudeBlock);
    const claude = anthropicImageTokens(width, height, CLAUDE);
    const opus = anthropicImageTokens(width, height, HIGH_RES);
    const gpt = openAiImageTokens(width, height, 'high', GPT);
    const oldClaude = chars4(claudeBlock);
    const oldGpt = chars4(gptPart);
    const flatClaude = estimateMessageTokens(claudeBlock);
    const flatGpt = estimateMessageTokens(gptPart);
    const image = `${kind} ${width}×${height} PNG, ${fmtBytes(png.length)}`;
    rows.push({
      benchmark: 'chars/4 vs docs',
      case: image,
      value: `chars/4 ${fmtInt(oldClaude)} / ${fmtInt(oldGpt)}`,
      baseline: documented(claude, opus, gpt),
      ratio: `${fmtRatio(oldClaude / claude)} / ${fmtRatio(oldClaude / opus)} / ${fmtRatio(oldGpt / gpt)}`,
    });
    rows.push({
      benchmark: 'default estimator vs docs',
      case: image,
      value: `estimate ${fmtInt(flatClaude)} / ${fmtInt(flatGpt)}`,
      baseline: documented(claude, opus, gpt),
      ratio: `${fmtRatio(flatClaude / claude)} / ${fmtRatio(flatClaude / opus)} / ${fmtRatio(flatGpt / gpt)}`,
    });
  }

  for (const [pages, perPage, what] of PDFS) {
    const pageTokens = new Array<number>(pages).fill(perPage);
    const block: DocumentBlock = { type: 'document', fileId: 'f', name: 'report.pdf', mediaType: 'application/pdf', bytes: pages * 3000, pages, pageTokens };
    const counted = (shape: 'anthropic' | 'openai', as: 'file' | 'text', model: string) =>
      estimateMessageTokens({ role: 'user', content: [documentWireBlock(shape, block, as, model)] }) - MESSAGE_OVERHEAD_TOKENS;
    const want = [
      pdfTokens('anthropic', pageTokens, CLAUDE, 'file'),
      pdfTokens('openai', pageTokens, GPT, 'file'),
      pdfTokens('openai', pageTokens, GPT, 'text'),
    ];
    const got = [counted('anthropic', 'file', CLAUDE), counted('openai', 'file', GPT), counted('openai', 'text', GPT)];
    rows.push({
      benchmark: 'PDF estimate vs docs',
      case: `${pages} ${what} page${pages === 1 ? '' : 's'} (${fmtInt(perPage)} text tokens each)`,
      value: `Claude file ${fmtInt(got[0]!)}, GPT-4o file ${fmtInt(got[1]!)}, as text ${fmtInt(got[2]!)}; flat ${fmtInt(ATTACHMENT_TOKENS)}`,
      baseline: `documented ${want.map(fmtInt).join(' / ')}`,
      ratio: `${got.map((g, i) => fmtRatio(g / want[i]!)).join(' / ')}; flat ${fmtRatio(ATTACHMENT_TOKENS / want[0]!)}`,
    });
  }

  const text: WindowMessage = { role: 'user', content: 'The quick brown fox jumps over the lazy dog. '.repeat(34) };
  const largest = messages.at(-1)!;
  const t = await medianMs({
    'text estimator': () => estimateMessageTokens(text),
    'Claude formula': () => anthropicImageTokens(3024, 4032, CLAUDE),
    'GPT-4o formula': () => openAiImageTokens(3024, 4032, 'high', GPT),
    'patch formula': () => openAiImageTokens(3024, 4032, 'high', 'gpt-5-mini'),
    'chars/4 of the block': () => chars4(largest),
  });
  const baseline = t['text estimator'] ?? NaN;
  for (const name of ['Claude formula', 'GPT-4o formula', 'patch formula', 'chars/4 of the block'] as const) {
    rows.push({
      benchmark: 'time per estimate',
      case: name === 'chars/4 of the block' ? `${name} (3024×4032 photo)` : `${name}, 3024×4032`,
      value: fmtMs(t[name] ?? NaN),
      baseline: `text estimator, 1,500 chars: ${fmtMs(baseline)}`,
      ratio: fmtRatio((t[name] ?? NaN) / baseline),
    });
  }
  return rows;
}
