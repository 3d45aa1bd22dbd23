/**
 * What the fake reads from images and PDFs it is sent: the format from the file's first bytes,
 * an image's size from its header (PNG IHDR, GIF logical screen, JPEG SOFn, WebP VP8/VP8L/VP8X)
 * and a PDF's pages and text. No image library: the APIs only need the header to check limits
 * and price an image, and so does the fake.
 */
import type { ImageMediaType } from '../../src/core';

export interface ImageInfo {
  mediaType: ImageMediaType;
  width: number;
  height: number;
  /** A GIF with more than one frame (OpenAI takes only non-animated GIFs). */
  animated: boolean;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The bytes of strict base64 (no whitespace, padded), or null. */
export function decodeBase64(data: string): Buffer | null {
  if (data.length % 4 !== 0 || !BASE64.test(data)) return null;
  return Buffer.from(data, 'base64');
}

/** The image type the bytes start like, whatever their header says after. */
export function sniffImageType(bytes: Buffer): ImageMediaType | null {
  if (bytes.length >= 8 && bytes.readUInt32BE(0) === 0x89504e47 && bytes.readUInt32BE(4) === 0x0d0a1a0a) return 'image/png';
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes.length >= 6 && /^GIF8[79]a$/.test(bytes.toString('latin1', 0, 6))) return 'image/gif';
  if (bytes.length >= 12 && bytes.toString('latin1', 0, 4) === 'RIFF' && bytes.toString('latin1', 8, 12) === 'WEBP') return 'image/webp';
  return null;
}

/** Type and size from the header, or null when the header is missing or cut short. */
export function readImageInfo(bytes: Buffer): ImageInfo | null {
  const mediaType = sniffImageType(bytes);
  const size = mediaType === null ? null : SIZE_READERS[mediaType](bytes);
  if (mediaType === null || size === null || size.width < 1 || size.height < 1) return null;
  return { mediaType, ...size, animated: mediaType === 'image/gif' && gifFrames(bytes) > 1 };
}

type Size = { width: number; height: number } | null;

const SIZE_READERS: Record<ImageMediaType, (bytes: Buffer) => Size> = {
  'image/png': (bytes) =>
    bytes.length >= 24 && bytes.toString('latin1', 12, 16) === 'IHDR' ? { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) } : null,
  'image/gif': (bytes) => (bytes.length >= 10 ? { width: bytes.readUInt16LE(6), height: bytes.readUInt16LE(8) } : null),
  'image/jpeg': jpegSize,
  'image/webp': webpSize,
};

function jpegSize(bytes: Buffer): Size {
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at += 1;
      continue;
    }
    const length = bytes.readUInt16BE(at + 2);
    // SOF0–SOF15 carry the frame size, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return at + 9 <= bytes.length ? { height: bytes.readUInt16BE(at + 5), width: bytes.readUInt16BE(at + 7) } : null;
    }
    at += 2 + length;
  }
  return null;
}

function webpSize(bytes: Buffer): Size {
  if (bytes.length < 30) return null;
  const chunk = bytes.toString('latin1', 12, 16);
  if (chunk === 'VP8X') return { width: 1 + bytes.readUIntLE(24, 3), height: 1 + bytes.readUIntLE(27, 3) };
  if (chunk === 'VP8L' && bytes[20] === 0x2f) {
    const bits = bytes.readUInt32LE(21);
    return { width: 1 + (bits & 0x3fff), height: 1 + ((bits >>> 14) & 0x3fff) };
  }
  if (chunk === 'VP8 ' && bytes[23] === 0x9d && bytes[24] === 0x01 && bytes[25] === 0x2a) {
    return { width: bytes.readUInt16LE(26) & 0x3fff, height: bytes.readUInt16LE(28) & 0x3fff };
  }
  return null;
}

/** Image descriptors (0x2C) in a GIF, walking its blocks; stops at the trailer or the end. */
function gifFrames(bytes: Buffer): number {
  let at = 13;
  const flags = bytes[10] ?? 0;
  if (flags & 0x80) at += 3 * 2 ** ((flags & 0x07) + 1);
  let frames = 0;
  const skipSubBlocks = () => {
    while (at < bytes.length && bytes[at] !== 0) at += bytes[at]! + 1;
    at += 1;
  };
  while (at < bytes.length) {
    const introducer = bytes[at];
    if (introducer === 0x3b) break;
    if (introducer === 0x21) {
      at += 2;
      skipSubBlocks();
    } else if (introducer === 0x2c) {
      frames += 1;
      const local = bytes[at + 9] ?? 0;
      at += 10;
      if (local & 0x80) at += 3 * 2 ** ((local & 0x07) + 1);
      at += 1; // LZW minimum code size
      skipSubBlocks();
    } else break;
  }
  return frames;
}

export interface PdfInfo {
  /** Page objects (`/Type /Page`), or the largest `/Count` of a page tree when pages sit in compressed object streams. */
  pages: number;
  /** Text drawn with `Tj`/`TJ` in uncompressed content streams, one string per page found. */
  text: string;
}

/**
 * Pages and text of a PDF, or null when the bytes do not start with `%PDF-`. Pages are counted
 * from the objects themselves, as a reader that does not trust the page tree would; the real
 * API renders them, which the fake cannot.
 */
export function readPdfInfo(bytes: Buffer): PdfInfo | null {
  if (bytes.toString('latin1', 0, 5) !== '%PDF-') return null;
  const source = bytes.toString('latin1');
  const pageObjects = source.match(/\/Type\s*\/Page(?![A-Za-z])/g)?.length ?? 0;
  const counts = [...source.matchAll(/\/Type\s*\/Pages\b[^>]*?\/Count\s+(\d+)|\/Count\s+(\d+)[^>]*?\/Type\s*\/Pages\b/g)].map((m) => Number(m[1] ?? m[2]));
  const pages = Math.max(pageObjects, ...counts, 0);
  const text = [...source.matchAll(/\(((?:\\.|[^\\)])*)\)\s*T[jJ]/g)].map((m) => m[1]!.replace(/\\(.)/g, '$1')).join(' ');
  return { pages, text };
}

/** `data:<type>;base64,<data>` split, or null for any other string. */
export function parseDataUrl(url: string): { mediaType: string; data: string } | null {
  const match = /^data:([^;,]*);base64,(.*)$/s.exec(url);
  return match ? { mediaType: match[1]!.toLowerCase(), data: match[2]! } : null;
}
