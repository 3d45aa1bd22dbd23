/**
 * Checks an image file and scales it down to what the providers use, with the browser's
 * own decoder and an OffscreenCanvas: in the image Worker (imageWorker.ts), or in the page
 * where no Worker can start. One stored image serves every model: the largest working
 * size either provider documents for its default detail is Anthropic's high-resolution
 * tier (2576 px on the long edge, Claude 4.7 and later); each provider scales it further
 * down itself (see core/tokens/imageTokens.ts). 5 MB keeps the base64 well under
 * Anthropic's 10 MB per image, and under the 5 MB its cloud platforms allow.
 */
/** What preparing a file makes of it: the image to store, or why it cannot be sent. */
export type PreparedImage =
  | { ok: true; blob: Blob; mediaType: string; width: number; height: number; original?: { width: number; height: number; bytes: number } }
  | { ok: false; reason: string };

/** Long edge of a stored image, in pixels: the largest size a provider reads at its default detail. */
const STORED_IMAGE_MAX_EDGE = 2576;

/** Largest stored image, in bytes. */
const STORED_IMAGE_MAX_BYTES = 5 * 1024 * 1024;

/** The image type the first bytes of a file show, whatever its name says; undefined when none of the four. */
function sniffImageType(bytes: Uint8Array): string | undefined {
  const at = (i: number) => bytes[i] ?? -1;
  if (at(0) === 0x89 && at(1) === 0x50 && at(2) === 0x4e && at(3) === 0x47) return 'image/png';
  if (at(0) === 0xff && at(1) === 0xd8 && at(2) === 0xff) return 'image/jpeg';
  if (at(0) === 0x47 && at(1) === 0x49 && at(2) === 0x46 && at(3) === 0x38) return 'image/gif';
  if (at(0) === 0x52 && at(1) === 0x49 && at(2) === 0x46 && at(3) === 0x46 && at(8) === 0x57 && at(9) === 0x45 && at(10) === 0x42 && at(11) === 0x50)
    return 'image/webp';
  return undefined;
}

/** Reads, checks and (when needed) scales down one image file. Never throws. */
export async function fitImage(file: Blob): Promise<PreparedImage> {
  let mediaType: string | undefined;
  try {
    mediaType = sniffImageType(new Uint8Array(await file.slice(0, 16).arrayBuffer()));
  } catch {
    return { ok: false, reason: 'the file could not be read.' };
  }
  if (!mediaType) return { ok: false, reason: 'it is not a PNG, JPEG, GIF or WebP image (its contents say otherwise).' };
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return { ok: false, reason: 'the image is damaged or cannot be decoded.' };
  }
  try {
    const { width, height } = bitmap;
    if (width < 1 || height < 1) return { ok: false, reason: 'the image has no pixels.' };
    let scale = Math.min(1, STORED_IMAGE_MAX_EDGE / Math.max(width, height));
    if (scale === 1 && file.size <= STORED_IMAGE_MAX_BYTES) return { ok: true, blob: file, mediaType, width, height };
    const original = { width, height, bytes: file.size };
    // Photos go as JPEG; PNG (screenshots, diagrams) stays lossless unless that is too large.
    let type = mediaType === 'image/jpeg' ? 'image/jpeg' : 'image/png';
    for (let attempt = 0; attempt < 6; attempt++) {
      const w = Math.max(1, Math.round(width * scale));
      const h = Math.max(1, Math.round(height * scale));
      const canvas = new OffscreenCanvas(w, h);
      const context = canvas.getContext('2d');
      if (!context) return { ok: false, reason: 'this browser cannot scale images down.' };
      context.drawImage(bitmap, 0, 0, w, h);
      const blob = await canvas.convertToBlob({ type, quality: 0.88 });
      if (blob.size <= STORED_IMAGE_MAX_BYTES) return { ok: true, blob, mediaType: type, width: w, height: h, original };
      if (type === 'image/png') type = 'image/jpeg';
      else scale *= 0.75;
    }
    return { ok: false, reason: 'it stays over 5 MB even scaled down.' };
  } finally {
    bitmap.close();
  }
}
