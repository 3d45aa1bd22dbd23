/**
 * The bytes a request carries: a plan refers to images and PDFs by file id, and only when
 * the request is built are the files it still sends read from storage and encoded.
 */
import { fileRefsIn, resolveFileRefs } from '../core';
import type { ChatRequest } from '../providers';
import { encodeFiles } from './imageActions';
import { pdfPageTexts } from './pdfActions';
import type { Runtime } from './runtime';

/**
 * The request with its images' and PDFs' bytes filled in (or a PDF's page texts, where it
 * goes as text): only the files the plan still sends are read from storage and encoded,
 * once per request. A file that was deleted is sent as a line saying so.
 */
export async function withFiles(rt: Runtime, request: ChatRequest): Promise<ChatRequest> {
  const refs = fileRefsIn(request.messages);
  if (refs.length === 0) return request;
  const encoded = await encodeFiles(
    rt,
    refs.flatMap((ref) => (ref.pdf?.as === 'text' ? [] : [ref.fileId])),
  );
  const texts = await pdfPageTexts(
    rt,
    refs.flatMap((ref) => (ref.pdf?.as === 'text' ? [ref.fileId] : [])),
  );
  const messages: readonly { content: unknown }[] = request.messages;
  return { ...request, messages: resolveFileRefs(messages, encoded, texts) } as ChatRequest;
}
