/** What reading a PDF makes of it: its pages and their text, or why it cannot be sent. */
export type ReadPdfResult = { ok: true; pages: number; pageTexts: string[] } | { ok: false; reason: string };

/** Reads a PDF file's pages and their text (PDF.js in a Worker in the browser). */
export type ReadPdf = (file: Blob) => Promise<ReadPdfResult>;
