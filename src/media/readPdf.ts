/**
 * Reads a PDF's page count and each page's text with PDF.js (`pdfjs-dist`), loaded only
 * when the first PDF is attached. The parsing runs in PDF.js's own Worker, bundled with
 * the app (pdfWorker.ts), so the page stays responsive and nothing is fetched from
 * elsewhere; the page only receives the text.
 */
import type * as PdfJsModule from 'pdfjs-dist';
import type { ReadPdf } from './pdfResult';

type PdfJs = typeof PdfJsModule;

let library: Promise<PdfJs> | undefined;

function pdfjs(): Promise<PdfJs> {
  library ??= import('pdfjs-dist').then((lib) => {
    // One Worker for every PDF, started from the app's own files (the CSP allows no other).
    lib.GlobalWorkerOptions.workerPort = new Worker(new URL('./pdfWorker.ts', import.meta.url), { type: 'module', name: 'windowpane-pdf' });
    return lib;
  });
  return library;
}

/** Page count and page texts of `file`, or why it cannot be read (corrupt, encrypted). Never throws. */
export const readPdf: ReadPdf = async (file) => {
  let lib: PdfJs;
  try {
    lib = await pdfjs();
  } catch {
    return { ok: false, reason: 'the PDF reader could not be loaded.' };
  }
  const data = new Uint8Array(await file.arrayBuffer());
  // No eval (the CSP forbids it), no fonts loaded into the page: only the text is wanted.
  const task = lib.getDocument({ data, isEvalSupported: false, disableFontFace: true, useSystemFonts: false, stopAtErrors: false });
  try {
    const doc = await task.promise;
    const pageTexts: string[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      pageTexts.push(
        content.items
          .map((item) => ('str' in item ? item.str + (item.hasEOL ? '\n' : '') : ''))
          .join('')
          .trim(),
      );
      page.cleanup();
    }
    return { ok: true, pages: doc.numPages, pageTexts };
  } catch (error) {
    const name = error instanceof Error ? error.name : '';
    if (name === 'PasswordException') return { ok: false, reason: 'it is protected by a password.' };
    if (name === 'InvalidPDFException') return { ok: false, reason: 'it is damaged and cannot be read.' };
    return { ok: false, reason: `it cannot be read (${error instanceof Error ? error.message : String(error)}).` };
  } finally {
    void task.destroy();
  }
};
