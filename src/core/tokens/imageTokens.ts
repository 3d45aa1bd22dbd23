// Token costs and upload limits of images and PDFs, as the providers document them.
//
// Every size here is in pixels and every count in tokens (whole numbers). The formulas
// are the providers' own; where a page left a detail open (rounding, the size a PDF page
// is rasterized at) the choice is named where it is made. Pages read 2026-11-25:
//
// - Anthropic "Vision", https://platform.claude.com/docs/en/build-with-claude/vision
//   (the newest copy found was fetched 2026-09-20): limits, formats, resolution tiers.
// - Anthropic "Coordinates and bounding boxes",
//   https://platform.claude.com/docs/en/build-with-claude/vision-coordinates: the exact
//   resize rule and its reference implementation ("How Claude resizes and pads images").
// - Anthropic "PDF support", https://platform.claude.com/docs/en/build-with-claude/pdf-support
//   (fetched 2026-09-20): request size, page limits, cost per page.
// - OpenAI "Images and vision", https://developers.openai.com/api/docs/guides/images-vision
//   (the newest copy found was fetched 2026-06-27): detail levels, model sizing behavior,
//   patch-based and tile-based tokenization, input requirements.
// - OpenAI "File inputs", https://developers.openai.com/api/docs/guides/file-inputs:
//   Chat Completions takes PDFs only, as `file` parts; vision models get text and page images.
//
// Anthropic's older formula, tokens ≈ width × height / 750 after a downscale to a 1568 px
// long edge and ~1.15 megapixels, is gone from the current page: it now counts 28 × 28 px
// patches against a per-model budget.

/** A size in whole pixels, both ≥ 1. */
export interface ImageSize {
  width: number;
  height: number;
}

/** Image media types both providers accept (OpenAI: GIF only when not animated). */
export const IMAGE_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
export type ImageMediaType = (typeof IMAGE_MEDIA_TYPES)[number];

/** What a provider accepts in one request. Sizes in bytes, `null` where the page states none. */
export interface ProviderImageLimits {
  mediaTypes: readonly ImageMediaType[];
  /**
   * Largest image, measured on its base64 text (Anthropic measures the encoded string:
   * its error reads "image exceeds 5 MB maximum: 5404560 bytes > 5242880 bytes").
   */
  maxImageBase64Bytes: number | null;
  /** Longest side an image may have before it is refused outright. */
  maxDimension: number | null;
  /** More images than `threshold` in one request lower the longest side to `maxDimension`. */
  manyImages: { threshold: number; maxDimension: number } | null;
  maxImagesPerRequest: number;
  /** The lower count for models with a small window (Anthropic: a 200k-token window). */
  maxImagesPerRequestSmallWindow: number;
  /** Whole request body. */
  maxRequestBytes: number;
}

const MB = 1024 * 1024;

/**
 * Per-provider limits.
 *
 * Anthropic ("Vision", read 2026-11-25): JPEG, PNG, GIF, WebP; 10 MB base64-encoded per image
 * on the API directly (5 MB on Bedrock and Google Cloud, and it was 5 MB on the API before);
 * 8000 × 8000 px at most, 2000 × 2000 px when a request holds more than 20 images; 600
 * images per request, 100 for models with a 200k-token window; 32 MB per request.
 *
 * OpenAI ("Images and vision", read 2026-11-25): PNG, JPEG, WebP, non-animated GIF; up to 512 MB
 * of payload and 1500 image inputs per request. The page states no per-image size or
 * dimension limit any more (older pages said 20 MB per image).
 */
export const IMAGE_LIMITS: Readonly<Record<'anthropic' | 'openai', ProviderImageLimits>> = {
  anthropic: {
    mediaTypes: IMAGE_MEDIA_TYPES,
    maxImageBase64Bytes: 10 * MB,
    maxDimension: 8000,
    manyImages: { threshold: 20, maxDimension: 2000 },
    maxImagesPerRequest: 600,
    maxImagesPerRequestSmallWindow: 100,
    maxRequestBytes: 32 * MB,
  },
  openai: {
    mediaTypes: IMAGE_MEDIA_TYPES,
    maxImageBase64Bytes: null,
    maxDimension: null,
    manyImages: null,
    maxImagesPerRequest: 1500,
    maxImagesPerRequestSmallWindow: 1500,
    maxRequestBytes: 512 * MB,
  },
};

/**
 * PDF limits. Anthropic ("PDF support", read 2026-11-25): 32 MB per request, 600 pages per
 * request, 100 when the request's context window is under 1M tokens; every active model
 * reads PDFs. OpenAI ("File inputs", read 2026-11-25): Chat Completions takes PDFs as `file`
 * parts on vision models; no page or size limit for them was found on the current pages, so
 * only the request's 512 MB applies here.
 */
export const PDF_LIMITS = {
  anthropic: { maxPagesPerRequest: 600, maxPagesPerRequestSmallWindow: 100, smallWindowBelowTokens: 1_000_000, maxRequestBytes: 32 * MB },
  openai: { maxRequestBytes: 512 * MB },
} as const;

/** Characters of base64 text `byteLength` bytes encode to (with padding). */
export function base64Length(byteLength: number): number {
  return 4 * Math.ceil(byteLength / 3);
}

// ---------------------------------------------------------------------------
// Anthropic

/** Side of one Anthropic visual token, in pixels ("Vision": 28 × 28 px patches). */
export const ANTHROPIC_PATCH_PX = 28;

/** A resolution tier: images over either limit are downscaled before they are counted. */
export interface AnthropicImageTier {
  maxLongEdge: number;
  maxVisualTokens: number;
}

/** "Standard" tier ("Vision", read 2026-11-25): all models before Claude 4.7. */
export const ANTHROPIC_STANDARD_TIER: AnthropicImageTier = { maxLongEdge: 1568, maxVisualTokens: 1568 };
/** "High-resolution" tier ("Vision", read 2026-11-25): Claude 4.7 and later models. */
export const ANTHROPIC_HIGH_RES_TIER: AnthropicImageTier = { maxLongEdge: 2576, maxVisualTokens: 4784 };

/**
 * The tier of a Claude model id: "Claude 4.7 and later" by the version in the id
 * (`claude-opus-4-7`, `claude-sonnet-5`, `claude-haiku-5-5`), else standard (older ids such as
 * `claude-3-5-sonnet-…`, unknown ids).
 */
export function anthropicImageTier(model = ''): AnthropicImageTier {
  const id = model.slice(model.lastIndexOf('/') + 1);
  const version = /^claude-[a-z]+-(\d+)(?:[-.](\d{1,2}))?(?:[-@]|$)/.exec(id);
  if (!version) return ANTHROPIC_STANDARD_TIER;
  const major = Number(version[1]);
  const minor = Number(version[2] ?? 0);
  return major > 4 || (major === 4 && minor >= 7) ? ANTHROPIC_HIGH_RES_TIER : ANTHROPIC_STANDARD_TIER;
}

function patchesOf(width: number, height: number, patch: number): number {
  return Math.ceil(width / patch) * Math.ceil(height / patch);
}

/** Python's round(): halves go to the even neighbour, as the live API does ("Coordinates and bounding boxes"). */
function roundHalfEven(value: number): number {
  const floor = Math.floor(value);
  if (value - floor !== 0.5) return Math.round(value);
  return floor % 2 === 0 ? floor : floor + 1;
}

function wholePixels(value: number): number {
  return Math.max(1, Math.floor(value));
}

/**
 * The size Claude downscales an image to before counting it, so the browser can resize to
 * exactly that and upload nothing the model would throw away. The reference implementation
 * of "How Claude resizes and pads images" (read 2026-11-25): the largest aspect-preserving
 * size whose 28-px-padded sides fit the tier's long edge and whose patch count fits its
 * visual-token budget; an image that already fits comes back unchanged. Never larger than
 * the input; the short side is within 1 px of the original aspect ratio.
 */
export function anthropicImageFit(width: number, height: number, model?: string): ImageSize {
  return resizedSize(wholePixels(width), wholePixels(height), anthropicImageTier(model));
}

function resizedSize(width: number, height: number, tier: AnthropicImageTier): ImageSize {
  const p = ANTHROPIC_PATCH_PX;
  const fits = (w: number, h: number) =>
    Math.ceil(w / p) * p <= tier.maxLongEdge && Math.ceil(h / p) * p <= tier.maxLongEdge && patchesOf(w, h, p) <= tier.maxVisualTokens;
  if (fits(width, height)) return { width, height };
  if (height > width) {
    const turned = resizedSize(height, width, tier);
    return { width: turned.height, height: turned.width };
  }
  const aspect = width / height;
  let lo = 1; // always fits
  let hi = width; // never fits
  while (lo + 1 < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (fits(mid, Math.max(roundHalfEven(mid / aspect), 1))) lo = mid;
    else hi = mid;
  }
  return { width: lo, height: Math.max(roundHalfEven(lo / aspect), 1) };
}

/**
 * Tokens one image costs on Claude: `⌈w / 28⌉ × ⌈h / 28⌉` of its downscaled size
 * (`anthropicImageFit`), so at most the tier's budget (1568 standard, 4784 high-resolution)
 * and at least 1. The docs' examples: 200×200 → 64, 1000×1000 → 1296, 1920×1080 → 1560 on
 * the standard tier and 2691 on the high-resolution one.
 */
export function anthropicImageTokens(width: number, height: number, model?: string): number {
  const fit = anthropicImageFit(width, height, model);
  return patchesOf(fit.width, fit.height, ANTHROPIC_PATCH_PX);
}

// ---------------------------------------------------------------------------
// OpenAI

/** The `detail` of an image part; `original` exists on gpt-5.4 and later only. */
export type OpenAiImageDetail = 'low' | 'high' | 'auto' | 'original';

interface PatchBudget {
  patches: number;
  maxDimension: number;
}

/** How one OpenAI model turns an image into tokens. */
export type OpenAiImageFormula =
  | { kind: 'tile'; baseTokens: number; tileTokens: number }
  | { kind: 'patch'; multiplier: number; high: PatchBudget; original?: PatchBudget; auto: 'high' | 'original' }
  | { kind: 'none' };

const PATCH_1536: PatchBudget = { patches: 1536, maxDimension: 2048 };
const PATCH_2500: PatchBudget = { patches: 2500, maxDimension: 2048 };
const PATCH_10000: PatchBudget = { patches: 10_000, maxDimension: 6000 };
const patch = (multiplier: number): OpenAiImageFormula => ({ kind: 'patch', multiplier, high: PATCH_1536, auto: 'high' });
const tile = (baseTokens: number, tileTokens: number): OpenAiImageFormula => ({ kind: 'tile', baseTokens, tileTokens });

/**
 * The models "Images and vision" names (read 2026-11-25), by id; an id also matches its dated
 * snapshots (`gpt-4o-2024-08-06`) and any `-suffix`, the longest key winning. Patch models the
 * multiplier table leaves out (gpt-5.2, the codex models) count 1 token per patch. gpt-3.5-turbo,
 * gpt-4 and its previews, o1-mini and o3-mini take no images; gpt-4-turbo (2024-04-09) and the
 * vision previews count as GPT-4o-class tiles, the page's "GPT-4o" family.
 */
const OPENAI_IMAGE_MODELS: Readonly<Record<string, OpenAiImageFormula>> = {
  'gpt-5.5': { kind: 'patch', multiplier: 1, high: PATCH_2500, original: PATCH_10000, auto: 'original' },
  'gpt-5.4': { kind: 'patch', multiplier: 1, high: PATCH_2500, original: PATCH_10000, auto: 'high' },
  'gpt-5.4-mini': patch(1.62),
  'gpt-5.4-nano': patch(2.46),
  'gpt-5-mini': patch(1.62),
  'gpt-5-nano': patch(2.46),
  'gpt-5.2': patch(1),
  'gpt-5.2-chat-latest': patch(1),
  'gpt-5.2-codex': patch(1),
  'gpt-5.3-codex': patch(1),
  'gpt-5-codex-mini': patch(1),
  'gpt-5.1-codex-mini': patch(1),
  'gpt-4.1-mini': patch(1.62),
  'gpt-4.1-nano': patch(2.46),
  'o4-mini': patch(1.72),
  'gpt-5': tile(70, 140),
  'gpt-5-chat-latest': tile(70, 140),
  'gpt-4o': tile(85, 170),
  'gpt-4.1': tile(85, 170),
  'gpt-4.5': tile(85, 170),
  'gpt-4o-mini': tile(2833, 5667),
  o1: tile(75, 150),
  'o1-pro': tile(75, 150),
  o3: tile(75, 150),
  'computer-use-preview': tile(65, 129),
  'gpt-3.5-turbo': { kind: 'none' },
  'gpt-4': { kind: 'none' },
  'gpt-4-turbo': tile(85, 170),
  'gpt-4-turbo-preview': { kind: 'none' },
  'gpt-4-vision-preview': tile(85, 170),
  'gpt-4-1106-vision-preview': tile(85, 170),
  'o1-mini': { kind: 'none' },
  'o3-mini': { kind: 'none' },
};

/** The formula for a model the table does not know: GPT-4o's tiles, the family most servers mimic. */
const UNKNOWN_MODEL_FORMULA = tile(85, 170);

/**
 * How `model` counts images: the table entry whose id the model id is or starts with followed
 * by `-` (provider prefixes such as `openai/` are ignored), else GPT-4o's tile formula (85 base
 * + 170 per tile), which is also what unknown OpenAI-compatible servers are estimated with.
 */
export function openAiImageFormula(model: string): OpenAiImageFormula {
  const id = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  let best: string | undefined;
  for (const key of Object.keys(OPENAI_IMAGE_MODELS)) {
    if ((id === key || id.startsWith(`${key}-`)) && (best === undefined || key.length > best.length)) best = key;
  }
  return best === undefined ? UNKNOWN_MODEL_FORMULA : OPENAI_IMAGE_MODELS[best]!;
}

/** Whether the model takes images (and so PDFs as `file` parts): false for the text-only ids in the table. */
export function openAiTakesImages(model: string): boolean {
  return openAiImageFormula(model).kind !== 'none';
}

const OPENAI_PATCH_PX = 32;
const OPENAI_TILE_PX = 512;
const OPENAI_LOW_DETAIL_PX = 512;

/** Scales (w, h) down, never up, so both sides fit `box`; whole pixels. */
function fitWithin(width: number, height: number, box: number): ImageSize {
  const scale = Math.min(1, box / Math.max(width, height));
  return scale === 1 ? { width, height } : { width: wholePixels(width * scale + 1e-9), height: wholePixels(height * scale + 1e-9) };
}

/**
 * Patch-based sizing ("Images and vision", read 2026-11-25): first fit the budget's maximum
 * dimension, then, when more than `patches` 32-px patches would cover it, shrink by
 * `sqrt(32² × budget / (w × h))`, adjusted so a whole number of patches covers the tighter
 * side. The page does not say how the scaled sides become whole pixels; flooring keeps the
 * count within budget.
 */
function patchFit(width: number, height: number, budget: PatchBudget): ImageSize {
  const boxed = fitWithin(width, height, budget.maxDimension);
  if (patchesOf(boxed.width, boxed.height, OPENAI_PATCH_PX) <= budget.patches) return boxed;
  // Shrink from the real-valued boxed size, so the sides are floored once.
  const box = Math.min(1, budget.maxDimension / Math.max(width, height));
  const w = width * box;
  const h = height * box;
  const shrink = Math.sqrt((OPENAI_PATCH_PX * OPENAI_PATCH_PX * budget.patches) / (w * h));
  const across = (w * shrink) / OPENAI_PATCH_PX;
  const down = (h * shrink) / OPENAI_PATCH_PX;
  const adjusted = shrink * Math.min(Math.floor(across) / across, Math.floor(down) / down);
  return { width: wholePixels(w * adjusted + 1e-9), height: wholePixels(h * adjusted + 1e-9) };
}

/**
 * Tile-based sizing ("Images and vision", read 2026-11-25): fit a 2048 × 2048 square, then
 * scale so the shortest side is 768 px. Both steps only shrink: the page's examples all shrink,
 * and a small image is not known to be enlarged.
 */
function tileFit(width: number, height: number): ImageSize {
  const boxed = fitWithin(width, height, 2048);
  const scale = Math.min(1, 768 / Math.min(boxed.width, boxed.height));
  return scale === 1 ? boxed : { width: wholePixels(boxed.width * scale + 1e-9), height: wholePixels(boxed.height * scale + 1e-9) };
}

/** The detail a request's `detail` comes to for a patch model (`auto` and `original` per model). */
function patchBudgetFor(formula: Extract<OpenAiImageFormula, { kind: 'patch' }>, detail: OpenAiImageDetail): PatchBudget | 'low' {
  if (detail === 'low') return 'low';
  const wanted = detail === 'auto' ? formula.auto : detail;
  return wanted === 'original' && formula.original ? formula.original : formula.high;
}

/**
 * The size an OpenAI model sees an image at, for the browser to resize to before upload.
 * Tile models: `low` is a 512 × 512 fit, `high` and `auto` the 2048-square-then-768 rule.
 * Patch models: `high` fits the model's patch budget and maximum dimension, `original` (gpt-5.4
 * and later) the larger one, `auto` whichever the page names for the model, `low` a 512 × 512
 * fit ("the model receives a low-resolution 512px x 512px version"). `auto` on tile models is
 * taken as `high`, the larger of the two costs the model may choose. Never larger than the
 * input; the aspect ratio is kept within 1 px.
 */
export function openAiImageFit(width: number, height: number, detail: OpenAiImageDetail, model: string): ImageSize {
  const w = wholePixels(width);
  const h = wholePixels(height);
  const formula = openAiImageFormula(model);
  if (formula.kind === 'patch') {
    const budget = patchBudgetFor(formula, detail);
    return budget === 'low' ? patchFit(w, h, { patches: PATCH_1536.patches, maxDimension: OPENAI_LOW_DETAIL_PX }) : patchFit(w, h, budget);
  }
  return detail === 'low' ? fitWithin(w, h, OPENAI_LOW_DETAIL_PX) : tileFit(w, h);
}

/**
 * Tokens one image costs on an OpenAI model ("Images and vision", read 2026-11-25).
 * Tile models: `low` costs the base tokens; otherwise base + tile tokens × the 512-px tiles of
 * `openAiImageFit` (GPT-4o: 1024×1024 → 765, 2048×4096 → 1105). Patch models: the 32-px patches
 * of `openAiImageFit` times the model's multiplier, rounded up (the page leaves the rounding
 * open; 1800×2400 → 1452 patches). A model that takes no images costs 0 (the request is refused).
 */
export function openAiImageTokens(width: number, height: number, detail: OpenAiImageDetail, model: string): number {
  const formula = openAiImageFormula(model);
  if (formula.kind === 'none') return 0;
  const fit = openAiImageFit(width, height, detail, model);
  if (formula.kind === 'tile') {
    if (detail === 'low') return formula.baseTokens;
    return formula.baseTokens + formula.tileTokens * patchesOf(fit.width, fit.height, OPENAI_TILE_PX);
  }
  return Math.ceil(patchesOf(fit.width, fit.height, OPENAI_PATCH_PX) * formula.multiplier - 1e-9);
}

// ---------------------------------------------------------------------------
// PDFs

/**
 * The size a PDF page is estimated at: US Letter at 200 dpi. Both providers rasterize pages
 * server-side at a size they do not publish ("Coordinates and bounding boxes": "at dimensions
 * you don't control"), so the page image is priced as a page-shaped image that meets the
 * model's downscale: on Claude's standard tier, 1568 tokens or just under.
 */
const PDF_PAGE: ImageSize = { width: 1700, height: 2200 };

/** How the PDF reaches the model: as the file (text and page images) or as its extracted text. */
export type PdfSentAs = 'file' | 'text';

/**
 * Tokens a PDF costs, from the tokens of each page's extracted text (count them with the
 * text estimator). Sent as text (OpenAI models that take no files, any server that takes
 * no PDFs): the text alone. Sent as a file: the text plus one page image per page, as both
 * "PDF support" (Anthropic: "the text from each page is extracted and provided alongside each
 * page's image", read 2026-11-25) and "File inputs" (OpenAI, read 2026-11-25) describe it. Claude
 * pages are priced on the standard tier whatever the model (the page's resolution is Anthropic's
 * choice); OpenAI pages at `high` detail.
 */
export function pdfTokens(provider: 'anthropic' | 'openai', pageTextTokens: readonly number[], model: string, sentAs: PdfSentAs): number {
  const text = pageTextTokens.reduce((sum, tokens) => sum + tokens, 0);
  if (sentAs === 'text') return text;
  return text + pageTextTokens.length * pdfPageImageTokens(provider, model);
}

/** Tokens of one PDF page's image (see `pdfTokens`). */
export function pdfPageImageTokens(provider: 'anthropic' | 'openai', model: string): number {
  return provider === 'anthropic' ? anthropicImageTokens(PDF_PAGE.width, PDF_PAGE.height) : openAiImageTokens(PDF_PAGE.width, PDF_PAGE.height, 'high', model);
}
