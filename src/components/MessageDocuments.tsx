import type { DocumentBlock } from '../core';
import { PdfChipBody } from './PdfChipBody';

/** The PDFs a message was sent with, as chips with their page count; one the next request leaves out is marked "not sent". */
export function MessageDocuments({ documents, notSent }: { documents: readonly DocumentBlock[]; notSent?: readonly string[] }) {
  return (
    <ul className="message-documents" aria-label="PDFs">
      {documents.map((pdf) => (
        <li key={pdf.fileId} className={`image-chip pdf-chip${notSent?.includes(pdf.fileId) ? ' not-sent' : ''}`}>
          <PdfChipBody name={pdf.name} pages={pdf.pages} bytes={pdf.bytes} />
          {notSent?.includes(pdf.fileId) && (
            <span className="badge badge-muted" title="Older than the images and PDFs each request carries: the next request sends a one-line note instead">
              not sent
            </span>
          )}
        </li>
      ))}
    </ul>
  );
}
