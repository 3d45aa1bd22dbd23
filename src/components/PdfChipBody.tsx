import type { ReactNode } from 'react';
import { formatBytes } from '../store';

/** A PDF as a chip shows it, in the composer and in the transcript: an icon, its name, pages and size, then `children` on the size line. */
export function PdfChipBody({ name, pages, bytes, children }: { name: string; pages: number; bytes: number; children?: ReactNode }) {
  return (
    <>
      <span className="pdf-icon" aria-hidden="true">
        PDF
      </span>
      <span className="image-chip-text">
        <span className="chip-name" title={name}>
          {name}
        </span>
        <span className="chip-size">
          {pages.toLocaleString('en-US')} {pages === 1 ? 'page' : 'pages'} · {formatBytes(bytes)}
          {children}
        </span>
      </span>
    </>
  );
}
