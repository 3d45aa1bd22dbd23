import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ANTHROPIC_HIGH_RES_TIER,
  ANTHROPIC_STANDARD_TIER,
  IMAGE_LIMITS,
  PDF_LIMITS,
  anthropicImageFit,
  anthropicImageTier,
  anthropicImageTokens,
  base64Length,
  openAiImageFit,
  openAiImageFormula,
  openAiImageTokens,
  openAiTakesImages,
  pdfPageImageTokens,
  pdfTokens,
  type OpenAiImageDetail,
} from '../../../src/core';

const STANDARD = 'claude-sonnet-4-6';
const HIGH_RES = 'claude-opus-4-7';

describe('Anthropic image tokens (the "Vision" page, resolution and token cost)', () => {
  // Each row is the page's own table: size, standard tier (downsized to, tokens), high-resolution tier.
  it.each([
    [200, 200, { width: 200, height: 200 }, 64, { width: 200, height: 200 }, 64],
    [1000, 1000, { width: 1000, height: 1000 }, 1296, { width: 1000, height: 1000 }, 1296],
    [1092, 1092, { width: 1092, height: 1092 }, 1521, { width: 1092, height: 1092 }, 1521],
    [1920, 1080, { width: 1456, height: 819 }, 1560, { width: 1920, height: 1080 }, 2691],
    [3840, 2160, { width: 1456, height: 819 }, 1560, { width: 2576, height: 1449 }, 4784],
  ])('%i×%i: standard %o (%i tokens), high-resolution %o (%i tokens)', (width, height, standardFit, standardTokens, highFit, highTokens) => {
    expect(anthropicImageFit(width, height, STANDARD)).toEqual(standardFit);
    expect(anthropicImageTokens(width, height, STANDARD)).toBe(standardTokens);
    expect(anthropicImageFit(width, height, HIGH_RES)).toEqual(highFit);
    expect(anthropicImageTokens(width, height, HIGH_RES)).toBe(highTokens);
  });

  it('2000×1500 costs 1564 tokens on the standard tier and 3888 on the high-resolution one', () => {
    expect(anthropicImageTokens(2000, 1500, STANDARD)).toBe(1564);
    expect(anthropicImageTokens(2000, 1500, HIGH_RES)).toBe(3888);
    // The page's table says 1269×952; its own reference implementation, ported here, gives
    // 1270×952 (1270 / (4/3) is exactly 952.5, which rounds to even). Both cost 1564.
    expect(anthropicImageFit(2000, 1500, STANDARD)).toEqual({ width: 1270, height: 952 });
  });

  it('resizes the A4 scan of "How Claude resizes and pads images" by its token budget, not its edge', () => {
    expect(anthropicImageFit(1075, 1520, STANDARD)).toEqual({ width: 924, height: 1307 });
    // 39 × 55 = 2145 patches: within the high-resolution budget, so not resized there.
    expect(anthropicImageFit(1075, 1520, HIGH_RES)).toEqual({ width: 1075, height: 1520 });
    expect(anthropicImageTokens(1075, 1520, HIGH_RES)).toBe(39 * 55);
  });

  it('puts Claude 4.7 and later on the high-resolution tier, everything else on the standard one', () => {
    for (const model of [
      'claude-opus-4-7',
      'claude-opus-4-8',
      'claude-sonnet-5',
      'claude-haiku-5-5',
      'claude-opus-5-5-20261001',
      'anthropic/claude-opus-4.7',
    ]) {
      expect(anthropicImageTier(model), model).toBe(ANTHROPIC_HIGH_RES_TIER);
    }
    for (const model of ['claude-sonnet-4-6', 'claude-haiku-4-5', 'claude-opus-4-1-20250805', 'claude-3-5-sonnet-20241022', 'windowpane-demo', '']) {
      expect(anthropicImageTier(model), model).toBe(ANTHROPIC_STANDARD_TIER);
    }
    expect(anthropicImageTokens(1920, 1080)).toBe(1560);
  });
});

describe('OpenAI image tokens (the "Images and vision" page, calculating costs)', () => {
  it('tile models: the page examples for GPT-4o', () => {
    // 1024×1024 high: no 2048 fit, shortest side to 768 → 768×768, 4 tiles: 85 + 4 × 170.
    expect(openAiImageFit(1024, 1024, 'high', 'gpt-4o')).toEqual({ width: 768, height: 768 });
    expect(openAiImageTokens(1024, 1024, 'high', 'gpt-4o')).toBe(765);
    // 2048×4096 high: 1024×2048 to fit the square, then 768×1536, 6 tiles: 85 + 6 × 170.
    expect(openAiImageFit(2048, 4096, 'high', 'gpt-4o')).toEqual({ width: 768, height: 1536 });
    expect(openAiImageTokens(2048, 4096, 'high', 'gpt-4o')).toBe(1105);
    // Low detail is the base cost whatever the size.
    expect(openAiImageTokens(4096, 8192, 'low', 'gpt-4o')).toBe(85);
  });

  it('tile models: base and tile tokens per model, auto priced as high', () => {
    expect(openAiImageTokens(1024, 1024, 'high', 'gpt-5')).toBe(70 + 4 * 140);
    expect(openAiImageTokens(1024, 1024, 'auto', 'gpt-4.1-2025-04-14')).toBe(765);
    expect(openAiImageTokens(1024, 1024, 'high', 'gpt-4o-mini')).toBe(2833 + 4 * 5667);
    expect(openAiImageTokens(1024, 1024, 'low', 'o3')).toBe(75);
    expect(openAiImageTokens(1024, 1024, 'high', 'computer-use-preview')).toBe(65 + 4 * 129);
  });

  it('patch models: the page examples (1024×1024 → 1024 patches, 1800×2400 → 1056×1408, 1452 patches) times the multiplier', () => {
    expect(openAiImageFit(1024, 1024, 'high', 'gpt-4.1-mini')).toEqual({ width: 1024, height: 1024 });
    expect(openAiImageTokens(1024, 1024, 'high', 'gpt-4.1-mini')).toBe(Math.ceil(1024 * 1.62));
    expect(openAiImageFit(1800, 2400, 'high', 'gpt-5-mini')).toEqual({ width: 1056, height: 1408 });
    expect(openAiImageTokens(1800, 2400, 'high', 'gpt-5.4-mini')).toBe(Math.ceil(1452 * 1.62));
    expect(openAiImageTokens(1800, 2400, 'high', 'gpt-5-nano')).toBe(Math.ceil(1452 * 2.46));
    expect(openAiImageTokens(1800, 2400, 'high', 'o4-mini-2025-04-16')).toBe(Math.ceil(1452 * 1.72));
    expect(openAiImageTokens(1800, 2400, 'high', 'gpt-5.2')).toBe(1452);
  });

  it('patch models with larger budgets: gpt-5.4 high 2,500 patches, original 10,000; gpt-5.5 auto is original', () => {
    expect(openAiImageTokens(1600, 1600, 'high', 'gpt-5.4')).toBe(2500);
    expect(openAiImageTokens(1600, 1600, 'original', 'gpt-5.4')).toBe(2500);
    expect(openAiImageTokens(3000, 3000, 'original', 'gpt-5.4')).toBe(94 * 94);
    expect(openAiImageTokens(3000, 3000, 'high', 'gpt-5.4')).toBeLessThanOrEqual(2500);
    expect(openAiImageTokens(3000, 3000, 'auto', 'gpt-5.4')).toBe(openAiImageTokens(3000, 3000, 'high', 'gpt-5.4'));
    expect(openAiImageTokens(3000, 3000, 'auto', 'gpt-5.5')).toBe(openAiImageTokens(3000, 3000, 'original', 'gpt-5.5'));
    // A patch model without `original` treats it as high.
    expect(openAiImageTokens(3000, 3000, 'original', 'gpt-5-mini')).toBe(openAiImageTokens(3000, 3000, 'high', 'gpt-5-mini'));
  });

  it('patch models also keep to the 2048-pixel maximum dimension (a panorama under the patch budget)', () => {
    // 4000×300 is 125 × 10 = 1250 patches, under 1536, but wider than 2048.
    expect(openAiImageFit(4000, 300, 'high', 'gpt-5-mini')).toEqual({ width: 2048, height: 153 });
    expect(openAiImageTokens(4000, 300, 'high', 'gpt-5-mini')).toBe(Math.ceil(64 * 5 * 1.62));
  });

  it('patch models at low detail see a 512 × 512 version', () => {
    expect(openAiImageFit(2048, 1024, 'low', 'gpt-5-mini')).toEqual({ width: 512, height: 256 });
    expect(openAiImageTokens(2048, 1024, 'low', 'gpt-5-mini')).toBe(Math.ceil(16 * 8 * 1.62));
  });

  it('chooses the formula by model id: snapshots, longest id first, provider prefixes, unknown ids as GPT-4o tiles', () => {
    expect(openAiImageFormula('gpt-4o-mini-2024-07-18')).toEqual({ kind: 'tile', baseTokens: 2833, tileTokens: 5667 });
    expect(openAiImageFormula('gpt-4o-2024-08-06')).toEqual({ kind: 'tile', baseTokens: 85, tileTokens: 170 });
    expect(openAiImageFormula('openai/gpt-4.1-nano')).toMatchObject({ kind: 'patch', multiplier: 2.46 });
    expect(openAiImageFormula('gpt-5.4-mini-2026-03-17')).toMatchObject({ kind: 'patch', multiplier: 1.62 });
    expect(openAiImageFormula('gpt-5.1')).toEqual({ kind: 'tile', baseTokens: 85, tileTokens: 170 });
    expect(openAiImageFormula('llava:13b')).toEqual({ kind: 'tile', baseTokens: 85, tileTokens: 170 });
  });

  it('knows the text-only models, which take no images and cost nothing (their request is refused)', () => {
    expect(openAiTakesImages('gpt-3.5-turbo')).toBe(false);
    expect(openAiTakesImages('gpt-3.5-turbo-0125')).toBe(false);
    expect(openAiTakesImages('gpt-4')).toBe(false);
    expect(openAiTakesImages('gpt-4o')).toBe(true);
    expect(openAiTakesImages('gpt-4-0125-preview')).toBe(false);
    expect(openAiTakesImages('gpt-4-turbo-2024-04-09')).toBe(true);
    expect(openAiImageTokens(1024, 1024, 'high', 'gpt-3.5-turbo')).toBe(0);
  });
});

describe('PDF tokens', () => {
  it('a PDF sent as a file costs its text plus one page image per page', () => {
    const pages = [1200, 800, 0];
    expect(pdfTokens('anthropic', pages, 'claude-sonnet-4-6', 'file')).toBe(2000 + 3 * pdfPageImageTokens('anthropic', 'claude-sonnet-4-6'));
    expect(pdfTokens('openai', pages, 'gpt-4o', 'file')).toBe(2000 + 3 * 765);
  });

  it('a PDF sent as extracted text costs the text alone', () => {
    expect(pdfTokens('openai', [1200, 800], 'gpt-3.5-turbo', 'text')).toBe(2000);
    expect(pdfTokens('anthropic', [], 'claude-sonnet-4-6', 'file')).toBe(0);
  });

  it('prices a Claude page image as a page-shaped image at the standard tier, whatever the model', () => {
    const page = pdfPageImageTokens('anthropic', 'claude-opus-4-7');
    expect(page).toBe(pdfPageImageTokens('anthropic', 'claude-haiku-4-5'));
    expect(page).toBeGreaterThan(1400);
    expect(page).toBeLessThanOrEqual(ANTHROPIC_STANDARD_TIER.maxVisualTokens);
  });
});

describe('limits', () => {
  it('states what each provider accepts', () => {
    expect(IMAGE_LIMITS.anthropic).toMatchObject({
      maxDimension: 8000,
      maxImagesPerRequest: 600,
      maxImagesPerRequestSmallWindow: 100,
      maxRequestBytes: 32 * 1024 * 1024,
    });
    expect(IMAGE_LIMITS.anthropic.manyImages).toEqual({ threshold: 20, maxDimension: 2000 });
    expect(IMAGE_LIMITS.anthropic.maxImageBase64Bytes).toBe(10 * 1024 * 1024);
    expect(IMAGE_LIMITS.openai).toMatchObject({ maxImagesPerRequest: 1500, maxRequestBytes: 512 * 1024 * 1024 });
    expect(IMAGE_LIMITS.openai.mediaTypes).toEqual(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);
    expect(PDF_LIMITS.anthropic).toMatchObject({ maxPagesPerRequest: 600, maxPagesPerRequestSmallWindow: 100 });
    expect(PDF_LIMITS.openai.maxRequestBytes).toBe(512 * 1024 * 1024);
  });

  it('measures base64 as the API does: four characters per three bytes, padded', () => {
    expect(base64Length(0)).toBe(0);
    expect(base64Length(1)).toBe(4);
    expect(base64Length(3)).toBe(4);
    expect(base64Length(4)).toBe(8);
    expect(base64Length(3_932_160)).toBe(5_242_880);
  });
});

const side = fc.integer({ min: 1, max: 12_000 });
const OPENAI_CASES: ReadonlyArray<[string, OpenAiImageDetail, number]> = [
  // model, detail, the least an image can cost
  ['gpt-4o', 'high', 85 + 170],
  ['gpt-4o', 'low', 85],
  ['gpt-5', 'auto', 70 + 140],
  ['gpt-4o-mini', 'high', 2833 + 5667],
  ['gpt-5-mini', 'high', 2],
  ['gpt-5-nano', 'low', 3],
  ['o4-mini', 'high', 2],
  ['gpt-5.4', 'original', 1],
  ['gpt-5.5', 'auto', 1],
];

describe('properties', () => {
  it('Anthropic: the fit never grows the image, meets the tier, keeps the aspect ratio within 1 px and costs what the original costs', () => {
    fc.assert(
      fc.property(side, side, fc.constantFrom(STANDARD, HIGH_RES), (width, height, model) => {
        const tier = anthropicImageTier(model);
        const fit = anthropicImageFit(width, height, model);
        expect(fit.width).toBeLessThanOrEqual(width);
        expect(fit.height).toBeLessThanOrEqual(height);
        expect(Math.max(fit.width, fit.height)).toBeLessThanOrEqual(tier.maxLongEdge);
        expect(Math.abs(fit.height - (fit.width * height) / width) <= 1 || Math.abs(fit.width - (fit.height * width) / height) <= 1).toBe(true);
        const tokens = anthropicImageTokens(width, height, model);
        expect(tokens).toBeGreaterThanOrEqual(1);
        expect(tokens).toBeLessThanOrEqual(tier.maxVisualTokens);
        expect(anthropicImageTokens(fit.width, fit.height, model)).toBe(tokens);
        expect(anthropicImageFit(fit.width, fit.height, model)).toEqual(fit);
      }),
    );
  });

  it('Anthropic: a larger image never costs less (same shape scaled up; or a side grown while no resize is needed)', () => {
    fc.assert(
      fc.property(side, side, fc.integer({ min: 2, max: 6 }), fc.constantFrom(STANDARD, HIGH_RES), (width, height, k, model) => {
        expect(anthropicImageTokens(width * k, height * k, model)).toBeGreaterThanOrEqual(anthropicImageTokens(width, height, model));
      }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 1000 }), fc.integer({ min: 1, max: 500 }), (width, height, grow) => {
        expect(anthropicImageTokens(width + grow, height, HIGH_RES)).toBeGreaterThanOrEqual(anthropicImageTokens(width, height, HIGH_RES));
      }),
    );
  });

  it('OpenAI: the fit never grows the image, keeps the aspect ratio within 1 px, and costs what the original costs, never below the minimum', () => {
    fc.assert(
      fc.property(side, side, fc.constantFrom(...OPENAI_CASES), (width, height, [model, detail, least]) => {
        const fit = openAiImageFit(width, height, detail, model);
        expect(fit.width).toBeLessThanOrEqual(width);
        expect(fit.height).toBeLessThanOrEqual(height);
        expect(Math.abs(fit.height - (fit.width * height) / width) <= 1 || Math.abs(fit.width - (fit.height * width) / height) <= 1).toBe(true);
        const tokens = openAiImageTokens(width, height, detail, model);
        expect(tokens).toBeGreaterThanOrEqual(least);
        expect(openAiImageTokens(fit.width, fit.height, detail, model)).toBe(tokens);
        const formula = openAiImageFormula(model);
        if (formula.kind === 'patch') {
          const budget = detail === 'original' || (detail === 'auto' && formula.auto === 'original') ? (formula.original ?? formula.high) : formula.high;
          expect(Math.max(fit.width, fit.height)).toBeLessThanOrEqual(budget.maxDimension);
          expect(tokens).toBeLessThanOrEqual(Math.ceil(budget.patches * formula.multiplier));
        } else if (detail !== 'low') {
          expect(Math.max(fit.width, fit.height)).toBeLessThanOrEqual(2048);
          expect(Math.min(fit.width, fit.height)).toBeLessThanOrEqual(768);
        }
      }),
    );
  });

  it('OpenAI: a larger image of the same shape never costs less', () => {
    fc.assert(
      fc.property(side, side, fc.integer({ min: 2, max: 6 }), fc.constantFrom(...OPENAI_CASES), (width, height, k, [model, detail]) => {
        expect(openAiImageTokens(width * k, height * k, detail, model)).toBeGreaterThanOrEqual(openAiImageTokens(width, height, detail, model));
      }),
    );
  });
});
