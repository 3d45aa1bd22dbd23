/**
 * PDFs the user sends with a message. Chosen, pasted or dropped PDFs wait in the composer
 * (`draftPdfs`) with their pages read (`deps.readPdf`: PDF.js in a Worker) until Send;
 * then each is stored as a file with its page texts, and the user message refers to it.
 * A request sends the file or, to a model that takes no PDFs, its text with page markers;
 * read_attachment reads its pages.
 */
import { estimateTextTokens, PDF_LIMITS, type AttachmentText, type DocumentBlock } from '../core';
import type { FileRecord } from '../persistence';
import type { Runtime } from './runtime';
import type { DraftPdf } from './state';
import { shownBranch } from './branches';
import { contextFor } from './planning';

/** Page texts of the PDFs among a runtime's `memoryFiles` (conversations storage could not take), by file id. */
const memoryPageTexts = new WeakMap<Runtime, Map<string, string[]>>();

function pageTextsKept(rt: Runtime): Map<string, string[]> {
  let kept = memoryPageTexts.get(rt);
  if (!kept) memoryPageTexts.set(rt, (kept = new Map()));
  return kept;
}

/**
 * The largest PDF taken, in bytes: one whose base64 fits Anthropic's 32 MB request limit
 * ("PDF support"; base64 is 4/3 of the bytes). OpenAI's 512 MB is never the tighter one.
 */
export const PDF_MAX_BYTES = Math.floor((PDF_LIMITS.anthropic.maxRequestBytes * 3) / 4);

/** Whether `file` is to be read as a PDF: its type says so, or its name ends in .pdf (browsers sometimes give no type). */
export function isPdfFile(file: Pick<File, 'type' | 'name'>): boolean {
  return file.type === 'application/pdf' || /\.pdf$/i.test(file.name);
}

/** Whether the first bytes are a PDF header ("%PDF-"), whatever the name says. */
async function looksLikePdf(file: Blob): Promise<boolean> {
  const head = new Uint8Array(await file.slice(0, 1024).arrayBuffer());
  const text = String.fromCharCode(...head);
  // The header may follow a little junk; readers accept it within the first kilobyte.
  return text.includes('%PDF-');
}

/** Pages one request may carry for the model in use: Anthropic's 100 under a 1M-token window, else 600 (the stricter provider's figures). */
function pageLimit(rt: Runtime): number {
  const limits = PDF_LIMITS.anthropic;
  const window = contextFor(rt, rt.store.getState().activeId).model.contextWindow;
  return window < limits.smallWindowBelowTokens ? limits.maxPagesPerRequestSmallWindow : limits.maxPagesPerRequest;
}

const format = (n: number) => n.toLocaleString('en-US');

/**
 * Adds PDFs to the composer: each is checked (its header, its size, that it opens, its
 * pages) and its pages read; a file that cannot be sent is named with the reason and the
 * others are added.
 */
export async function addDraftPdfs(rt: Runtime, files: readonly File[]): Promise<void> {
  const problems: string[] = [];
  const added: DraftPdf[] = [];
  const maxPages = pageLimit(rt);
  for (const file of files) {
    const name = file.name.trim() || 'Pasted document.pdf';
    if (file.size > PDF_MAX_BYTES) {
      problems.push(`${name} is over the ${format(Math.round(PDF_MAX_BYTES / (1024 * 1024)))} MB limit for a PDF.`);
      continue;
    }
    if (!(await looksLikePdf(file).catch(() => false))) {
      problems.push(`${name} is not a PDF (its contents say otherwise).`);
      continue;
    }
    const read = rt.deps.readPdf;
    const result = read
      ? await read(file).catch((error: unknown) => ({ ok: false as const, reason: String(error) }))
      : { ok: false as const, reason: 'PDFs cannot be read in this browser.' };
    if (!result.ok) {
      problems.push(`${name} could not be added: ${result.reason}`);
      continue;
    }
    if (result.pages < 1) {
      problems.push(`${name} could not be added: it has no pages.`);
      continue;
    }
    if (result.pages > maxPages) {
      problems.push(`${name} has ${format(result.pages)} pages; a request may carry at most ${format(maxPages)}.`);
      continue;
    }
    added.push({
      id: rt.deps.newId(),
      name,
      blob: file,
      bytes: file.size,
      pages: result.pages,
      pageTexts: result.pageTexts,
      pageTokens: result.pageTexts.map(estimateTextTokens),
    });
  }
  if (added.length > 0) rt.store.setState((s) => ({ draftPdfs: [...s.draftPdfs, ...added] }));
  if (problems.length > 0) rt.notifier.notify({ tone: 'error', text: problems.join(' ') });
}

/** The block a stored message keeps for a draft PDF. */
export function documentBlockOf(pdf: DraftPdf): DocumentBlock {
  return { type: 'document', fileId: pdf.id, name: pdf.name, mediaType: 'application/pdf', bytes: pdf.bytes, pages: pdf.pages, pageTokens: pdf.pageTokens };
}

/** Stores the composer's PDFs, with their page texts, as files of `conversationId` (all or none) and returns their blocks. */
export async function storeDraftPdfs(rt: Runtime, conversationId: string, pdfs: readonly DraftPdf[]): Promise<DocumentBlock[]> {
  if (pdfs.length === 0) return [];
  const createdAt = rt.deps.now();
  const records: FileRecord[] = pdfs.map((pdf) => ({
    id: pdf.id,
    conversationId,
    name: pdf.name,
    mediaType: 'application/pdf',
    blob: pdf.blob,
    bytes: pdf.bytes,
    createdAt,
    pageTexts: pdf.pageTexts,
  }));
  if (!rt.memoryOnly.has(conversationId)) await rt.repositories.files.addFiles(records);
  else
    for (const record of records) {
      rt.memoryFiles.set(record.id, record.blob);
      pageTextsKept(rt).set(record.id, record.pageTexts!);
    }
  return pdfs.map(documentBlockOf);
}

/**
 * A stored PDF's page texts, or undefined when the file is gone. A PDF stored without them
 * (restored from a backup that did not carry them) is read again from its bytes.
 */
async function pageTextsOf(rt: Runtime, fileId: string): Promise<string[] | undefined> {
  const kept = pageTextsKept(rt).get(fileId);
  if (kept) return kept;
  try {
    const record = await rt.repositories.files.getFile(fileId);
    if (!record) return undefined;
    if (Array.isArray(record.pageTexts)) return record.pageTexts;
    const read = await rt.deps.readPdf?.(record.blob);
    return read?.ok ? read.pageTexts : undefined;
  } catch {
    return undefined;
  }
}

/** The page texts of every PDF `fileIds` names that is still stored with them. */
export async function pdfPageTexts(rt: Runtime, fileIds: readonly string[]): Promise<Map<string, string[]>> {
  const texts = new Map<string, string[]>();
  for (const id of fileIds) {
    const pages = await pageTextsOf(rt, id);
    if (pages) texts.set(id, pages);
  }
  return texts;
}

/**
 * The PDFs of a conversation's branch shown as read_attachment reads them (by page), each
 * once, under its name ("report (2).pdf" when another PDF has the same name). A PDF whose
 * file is gone is left out.
 */
export async function readablePdfs(rt: Runtime, conversationId: string): Promise<AttachmentText[]> {
  const blocks = new Map<string, DocumentBlock>();
  for (const message of shownBranch(rt.store.getState(), conversationId)) {
    for (const block of message.content) if (block.type === 'document' && !blocks.has(block.fileId)) blocks.set(block.fileId, block);
  }
  const out: AttachmentText[] = [];
  const taken = new Set<string>();
  for (const block of blocks.values()) {
    const pages = await pageTextsOf(rt, block.fileId);
    if (!pages) continue;
    let name = block.name;
    for (let n = 2; taken.has(name); n++) name = block.name.replace(/(\.[^.]*)?$/, (ext) => ` (${n})${ext}`);
    taken.add(name);
    out.push({ name, text: pages.join('\n\n'), pages });
  }
  return out;
}
