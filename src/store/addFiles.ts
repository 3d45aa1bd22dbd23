/**
 * Files chosen, pasted or dropped on the composer: a chunk of its own with the readers it
 * needs, loaded on first use. Images and PDFs go in the composer, to be sent with the next
 * message; other files are attached for read_attachment.
 */
import * as attachments from './attachmentActions';
import * as images from './imageActions';
import * as pdfs from './pdfActions';
import type { Runtime } from './runtime';

export async function addFiles(rt: Runtime, conversationId: string | null, files: readonly File[]): Promise<void> {
  const pictures = files.filter(images.isImageFile);
  const documents = files.filter((file) => !images.isImageFile(file) && pdfs.isPdfFile(file));
  const others = files.filter((file) => !images.isImageFile(file) && !pdfs.isPdfFile(file));
  if (pictures.length > 0) await images.addDraftImages(rt, pictures);
  if (documents.length > 0) await pdfs.addDraftPdfs(rt, documents);
  if (others.length > 0) await attachments.attachFiles(rt, conversationId, others);
}

export { removeAttachment } from './attachmentActions';
