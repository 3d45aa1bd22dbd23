/**
 * Images the user sends with a message. Chosen, pasted or dropped images wait in the
 * composer (`draftImages`, Blobs in memory) until Send; then they are stored as files and
 * the user message refers to them. Each image is checked and, when larger than either
 * provider uses, scaled down in the browser before it is kept (`deps.prepareImage`).
 */
import { IMAGE_MEDIA_TYPES, sizeText, type ImageBlock, type McpImage } from '../core';
import type { PreparedImage } from '../media/fitImage';
import { base64ToBlob, blobToBase64, type FileRecord } from '../persistence';
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

/**
 * One image checked (type, size, that it decodes) and scaled down when larger than either
 * provider uses, ready to be stored under a new id; or why it cannot be sent, as a sentence
 * naming it.
 */
async function prepareOne(rt: Runtime, file: File, name: string): Promise<DraftImage | string> {
  if (!isImageFile(file)) return `${name} is not an image Windowpane can send (PNG, JPEG, GIF or WebP).`;
  if (file.size > IMAGE_MAX_INPUT_BYTES) return `${name} is over the ${IMAGE_MAX_INPUT_BYTES / (1024 * 1024)} MB limit for an image.`;
  const prepare = rt.deps.prepareImage;
  const prepared: PreparedImage = prepare
    ? await prepare(file).catch((error: unknown) => ({ ok: false as const, reason: String(error) }))
    : { ok: false, reason: 'images cannot be read in this browser' };
  if (!prepared.ok) return `${name} could not be added: ${prepared.reason}`;
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
  return image;
}

async function prepareAll(rt: Runtime, files: readonly File[]): Promise<void> {
  const problems: string[] = [];
  const added: DraftImage[] = [];
  for (const [index, file] of files.entries()) {
    const image = await prepareOne(rt, file, imageName(file, index));
    if (typeof image === 'string') problems.push(image);
    else added.push(image);
  }
  if (added.length > 0) rt.store.setState((s) => ({ draftImages: [...s.draftImages, ...added] }));
  if (problems.length > 0) rt.notifier.notify({ tone: 'error', text: problems.join(' ') });
}

/**
 * The images a tool returned (an MCP result's, base64 from an untrusted server), each
 * checked and scaled like one the user adds, then stored as files of `conversationId`:
 * their blocks, and a line for the tool result's text for each one that could not be kept.
 */
export async function storeToolImages(
  rt: Runtime,
  conversationId: string,
  toolName: string,
  images: readonly McpImage[],
): Promise<{ blocks: ImageBlock[]; notes: string[] }> {
  const ready: DraftImage[] = [];
  const notes: string[] = [];
  for (const [index, image] of images.entries()) {
    const ext = image.mediaType === 'image/jpeg' ? 'jpg' : image.mediaType.slice('image/'.length);
    const name = `${toolName} image${images.length > 1 ? ` ${index + 1}` : ''}.${ext}`;
    let file: File;
    try {
      file = new File([base64ToBlob(image.data, image.mediaType)], name, { type: image.mediaType });
    } catch {
      notes.push(`[${name}: not shown to the model: its data is not base64]`);
      continue;
    }
    const prepared = await prepareOne(rt, file, name);
    if (typeof prepared === 'string') notes.push(`[${image.mediaType}, ${sizeText(file.size)}, not shown to the model: ${prepared}]`);
    else ready.push(prepared);
  }
  return { blocks: await storeDraftImages(rt, conversationId, ready), notes };
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
