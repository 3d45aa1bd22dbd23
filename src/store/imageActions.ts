/**
 * Images the user sends with a message. Chosen, pasted or dropped images wait in the
 * composer (`draftImages`, Blobs in memory) until Send; then they are stored as files and
 * the user message refers to them. Each image is checked and, when larger than either
 * provider uses, scaled down in the browser before it is kept (`deps.prepareImage`).
 */
import { IMAGE_MEDIA_TYPES, type ImageBlock } from '../core';
import type { PreparedImage } from '../media/fitImage';
import { blobToBase64, type FileRecord } from '../persistence';
import type { Runtime } from './runtime';
import type { DraftImage } from './state';
import { readImage } from './filesShown';

/** The largest image file taken, in bytes (30 MB); larger ones are refused before they are read. */
export const IMAGE_MAX_INPUT_BYTES = 30 * 1024 * 1024;

/** Whether `file` is an image Windowpane sends (by its type, as the browser names it). */
export function isImageFile(file: Pick<File, 'type'>): boolean {
  return (IMAGE_MEDIA_TYPES as readonly string[]).includes(file.type);
}

/** A name for a pasted image, which the clipboard gives as "image.png" or none. */
function imageName(file: File, index: number): string {
  const name = file.name.trim();
  if (name && name !== 'image.png') return name;
  const ext = file.type.split('/')[1] === 'jpeg' ? 'jpg' : (file.type.split('/')[1] ?? 'png');
  return index === 0 ? `Pasted image.${ext}` : `Pasted image ${index + 1}.${ext}`;
}

/**
 * Adds images to the composer: each is checked (type, size, that it decodes) and scaled
 * down when larger than either provider uses; a file that cannot be sent is named with
 * the reason and the others are added. Images pasted or dropped one after another are
 * added in that order, however long each takes to scale.
 */
export function addDraftImages(rt: Runtime, files: readonly File[]): Promise<void> {
  const added = rt.imageWork.then(() => prepareAll(rt, files));
  rt.imageWork = added.catch(() => undefined);
  return added;
}

async function prepareAll(rt: Runtime, files: readonly File[]): Promise<void> {
  const problems: string[] = [];
  const added: DraftImage[] = [];
  for (const [index, file] of files.entries()) {
    const name = imageName(file, index);
    if (!isImageFile(file)) {
      problems.push(`${name} is not an image Windowpane can send (PNG, JPEG, GIF or WebP).`);
      continue;
    }
    if (file.size > IMAGE_MAX_INPUT_BYTES) {
      problems.push(`${name} is over the ${IMAGE_MAX_INPUT_BYTES / (1024 * 1024)} MB limit for an image.`);
      continue;
    }
    const prepare = rt.deps.prepareImage;
    const prepared: PreparedImage = prepare
      ? await prepare(file).catch((error: unknown) => ({ ok: false as const, reason: String(error) }))
      : { ok: false, reason: 'images cannot be read in this browser' };
    if (!prepared.ok) {
      problems.push(`${name} could not be added: ${prepared.reason}`);
      continue;
    }
    const image: DraftImage = {
      id: rt.deps.newId(),
      name,
      mediaType: prepared.mediaType,
      blob: prepared.blob,
      width: prepared.width,
      height: prepared.height,
      bytes: prepared.blob.size,
    };
    if (prepared.original) image.original = prepared.original;
    added.push(image);
  }
  if (added.length > 0) rt.store.setState((s) => ({ draftImages: [...s.draftImages, ...added] }));
  if (problems.length > 0) rt.notifier.notify({ tone: 'error', text: problems.join(' ') });
}

/** The block a stored message keeps for a draft image. */
export function imageBlockOf(image: DraftImage): ImageBlock {
  const block: ImageBlock = {
    type: 'image',
    fileId: image.id,
    name: image.name,
    mediaType: image.mediaType,
    width: image.width,
    height: image.height,
    bytes: image.bytes,
  };
  if (image.original) block.original = image.original;
  return block;
}

/** Stores the composer's images as files of `conversationId` (all or none) and returns their blocks. */
export async function storeDraftImages(rt: Runtime, conversationId: string, images: readonly DraftImage[]): Promise<ImageBlock[]> {
  if (images.length === 0) return [];
  const createdAt = rt.deps.now();
  const records: FileRecord[] = images.map((image) => ({
    id: image.id,
    conversationId,
    name: image.name,
    mediaType: image.mediaType,
    blob: image.blob,
    bytes: image.bytes,
    createdAt,
  }));
  if (!rt.memoryOnly.has(conversationId)) await rt.repositories.files.addFiles(records);
  else for (const record of records) rt.memoryFiles.set(record.id, record.blob);
  return images.map(imageBlockOf);
}

/** The base64 bytes of every file `fileIds` names that is still stored (a deleted one is left out). */
export async function encodeFiles(rt: Runtime, fileIds: readonly string[]): Promise<Map<string, string>> {
  const encoded = new Map<string, string>();
  for (const id of fileIds) {
    const blob = await readImage(rt, id);
    if (blob) encoded.set(id, await blobToBase64(blob));
  }
  return encoded;
}
