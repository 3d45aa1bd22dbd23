import { forwardRef, useRef, useState, type ClipboardEvent, type DragEvent, type FormEvent, type KeyboardEvent } from 'react';
import { documentTokens, imageTokens, type PdfSentAs } from '../core';
import { formatBytes, type AttachmentInfo, type DraftImage, type DraftPdf } from '../store';
import { BlobImage } from './BlobImage';
import { PdfChipBody } from './PdfChipBody';

interface ComposerProps {
  /** Returns false when the message was not taken (e.g. another answer is still streaming); the draft is then kept. */
  onSend: (text: string) => boolean | void;
  /** While an answer streams: shows Stop instead of Send, and Esc stops. */
  streaming?: boolean;
  onStop?: () => void;
  onDraftChange?: (text: string) => void;
  /** The draft as the app keeps it: when it changes to other than what was typed (a message that could not be sent, put back), the box shows it. */
  draft?: string;
  /** Called when the box is focused: a message may be on its way. */
  onFocus?: () => void;
  disabled?: boolean;
  placeholder?: string;
  /** Files attached to the conversation, shown as chips above the box. */
  attachments?: readonly AttachmentInfo[];
  /** Given, the composer offers "Attach files" and takes files dropped on it. */
  onAttach?: (files: File[]) => void;
  onRemoveAttachment?: (id: string) => void;
  /** Images to be sent with the next message, shown as thumbnails. */
  images?: readonly DraftImage[];
  /** Whose count the thumbnails and PDF chips show: the provider's request shape, the model, and how PDFs go. */
  imagePricing?: { shape: 'anthropic' | 'openai'; model: string; pdfAs?: PdfSentAs };
  /** Given, images and PDFs pasted into the box are added. */
  onPasteImages?: (files: File[]) => void;
  onRemoveImage?: (id: string) => void;
  /** PDFs to be sent with the next message, shown as chips. */
  pdfs?: readonly DraftPdf[];
  onRemovePdf?: (id: string) => void;
}

const NO_ATTACHMENTS: readonly AttachmentInfo[] = [];
const NO_IMAGES: readonly DraftImage[] = [];
const NO_PDFS: readonly DraftPdf[] = [];
const DEFAULT_PRICING: { shape: 'anthropic' | 'openai'; model: string; pdfAs?: PdfSentAs } = { shape: 'anthropic', model: '' };

function hasFiles(event: DragEvent): boolean {
  return Array.from(event.dataTransfer?.types ?? []).includes('Files');
}

/**
 * The message box: Enter sends, Shift+Enter adds a line, Esc stops a streaming answer.
 * Text files can be attached with the button or dropped on it; they show as chips.
 */
export const Composer = forwardRef<HTMLTextAreaElement, ComposerProps>(function Composer(
  {
    onSend,
    streaming = false,
    onStop,
    onDraftChange,
    draft: kept,
    onFocus,
    disabled = false,
    placeholder = 'Message',
    attachments = NO_ATTACHMENTS,
    onAttach,
    onRemoveAttachment,
    images = NO_IMAGES,
    imagePricing = DEFAULT_PRICING,
    onPasteImages,
    onRemoveImage,
    pdfs = NO_PDFS,
    onRemovePdf,
  },
  ref,
) {
  const [draft, setDraft] = useState(kept ?? '');
  const [keptBefore, setKeptBefore] = useState(kept);
  if (kept !== keptBefore) {
    setKeptBefore(kept);
    if (kept !== undefined && kept !== draft) setDraft(kept);
  }
  const [dragging, setDragging] = useState(false);
  const fileInput = useRef<HTMLInputElement>(null);
  const canSend = !disabled && !streaming && (draft.trim().length > 0 || images.length > 0 || pdfs.length > 0);

  function onPaste(event: ClipboardEvent<HTMLTextAreaElement>) {
    if (!onPasteImages) return;
    const files = Array.from(event.clipboardData.files).filter((file) => file.type.startsWith('image/') || file.type === 'application/pdf');
    if (files.length === 0) return;
    // A copied image often comes with its file name as text too; only the image is taken.
    event.preventDefault();
    onPasteImages(files);
  }

  function update(text: string) {
    setDraft(text);
    onDraftChange?.(text);
  }

  function submit(event?: FormEvent) {
    event?.preventDefault();
    if (!canSend) return;
    if (onSend(draft) === false) return;
    update('');
  }

  function onKeyDown(event: KeyboardEvent<HTMLTextAreaElement>) {
    if (event.key === 'Enter' && !event.shiftKey && !event.nativeEvent.isComposing) {
      event.preventDefault();
      submit();
    } else if (event.key === 'Escape' && streaming) {
      event.preventDefault();
      onStop?.();
    }
  }

  const dropHandlers = onAttach && {
    onDragOver(event: DragEvent<HTMLFormElement>) {
      if (!hasFiles(event)) return;
      event.preventDefault();
      event.dataTransfer.dropEffect = 'copy';
      setDragging(true);
    },
    onDragLeave(event: DragEvent<HTMLFormElement>) {
      if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
    },
    onDrop(event: DragEvent<HTMLFormElement>) {
      if (!hasFiles(event) && event.dataTransfer.files.length === 0) return;
      event.preventDefault();
      setDragging(false);
      const files = Array.from(event.dataTransfer.files);
      if (files.length > 0) onAttach(files);
    },
  };

  return (
    <form className={`composer${dragging ? ' composer-dragging' : ''}`} onSubmit={submit} {...dropHandlers}>
      {images.length > 0 && (
        <ul className="image-chips" aria-label="Images to send">
          {images.map((image) => (
            <li key={image.id} className="image-chip">
              <BlobImage blob={image.blob} alt={image.name} className="image-thumb" />
              <span className="image-chip-text">
                <span className="chip-name" title={image.name}>
                  {image.name}
                </span>
                <span className="chip-size">
                  {image.width}×{image.height} · {formatBytes(image.bytes)} · ≈
                  {imageTokens(imagePricing.shape, image.width, image.height, imagePricing.model).toLocaleString('en-US')} tokens
                </span>
                {image.original && (
                  <span className="chip-size">
                    scaled down from {image.original.width}×{image.original.height}, {formatBytes(image.original.bytes)}
                  </span>
                )}
              </span>
              {onRemoveImage && (
                <button
                  type="button"
                  className="chip-remove"
                  aria-label={`Remove ${image.name}`}
                  title={`Remove ${image.name}`}
                  onClick={() => onRemoveImage(image.id)}
                >
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {pdfs.length > 0 && (
        <ul className="image-chips" aria-label="PDFs to send">
          {pdfs.map((pdf) => (
            <li key={pdf.id} className="image-chip pdf-chip">
              <PdfChipBody name={pdf.name} pages={pdf.pages} bytes={pdf.bytes}>
                {' · ≈'}
                {documentTokens(imagePricing.shape, pdf, imagePricing.pdfAs ?? 'file', imagePricing.model).toLocaleString('en-US')} tokens
                {imagePricing.pdfAs === 'text' && ' · sent as text: this model takes no PDFs'}
              </PdfChipBody>
              {onRemovePdf && (
                <button
                  type="button"
                  className="chip-remove"
                  aria-label={`Remove ${pdf.name}`}
                  title={`Remove ${pdf.name}`}
                  onClick={() => onRemovePdf(pdf.id)}
                >
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {attachments.length > 0 && (
        <ul className="attachment-chips" aria-label="Attached files">
          {attachments.map((a) => (
            <li key={a.id} className="chip">
              <span className="chip-name" title={a.name}>
                {a.name}
              </span>
              <span className="chip-size">{formatBytes(a.size)}</span>
              {onRemoveAttachment && (
                <button
                  type="button"
                  className="chip-remove"
                  aria-label={`Remove ${a.name}`}
                  title={`Remove ${a.name}`}
                  onClick={() => onRemoveAttachment(a.id)}
                >
                  ×
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      <div className="composer-row">
        {onAttach && (
          <>
            <button
              type="button"
              className="attach-button"
              aria-label="Attach files"
              title="Attach images, PDFs or text files (or drop or paste them here)"
              onClick={() => fileInput.current?.click()}
            >
              <svg viewBox="0 0 24 24" width="18" height="18" aria-hidden="true" focusable="false">
                <path
                  d="M16.5 6.5v10a4.5 4.5 0 0 1-9 0V5a3 3 0 0 1 6 0v10.5a1.5 1.5 0 0 1-3 0V6.5"
                  fill="none"
                  stroke="currentColor"
                  strokeWidth="1.8"
                  strokeLinecap="round"
                />
              </svg>
            </button>
            <input
              ref={fileInput}
              type="file"
              multiple
              hidden
              aria-label="Files to attach"
              onChange={(event) => {
                const files = Array.from(event.target.files ?? []);
                // Cleared so choosing the same file again fires another change.
                event.target.value = '';
                if (files.length > 0) onAttach(files);
              }}
            />
          </>
        )}
        <textarea
          ref={ref}
          aria-label="Message"
          placeholder={placeholder}
          rows={Math.min(10, Math.max(2, draft.split('\n').length))}
          value={draft}
          onChange={(event) => update(event.target.value)}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
          onFocus={onFocus}
        />
        {streaming ? (
          <button type="button" onClick={onStop} title="Stop (Esc)">
            Stop
          </button>
        ) : (
          <button type="submit" disabled={!canSend}>
            Send
          </button>
        )}
      </div>
      {dragging && (
        <p className="drop-hint" aria-hidden="true">
          Drop images, PDFs or text files to attach them
        </p>
      )}
    </form>
  );
});
