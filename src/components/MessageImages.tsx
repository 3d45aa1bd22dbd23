import { useEffect, useState } from 'react';
import type { ImageBlock } from '../core';
import { useActions } from './AppRuntime';
import { BlobImage } from './BlobImage';

/**
 * The images a message was sent with (or a tool returned), read from storage; one the next
 * request leaves out is marked "not sent".
 */
export function MessageImages({ images, notSent, label = 'Images' }: { images: readonly ImageBlock[]; notSent?: readonly string[]; label?: string }) {
  return (
    <ul className="message-images" aria-label={label}>
      {images.map((image) => (
        <li key={image.fileId} className={notSent?.includes(image.fileId) ? 'not-sent' : undefined}>
          <StoredImage image={image} />
          <span className="message-image-caption">
            {image.name} · {image.width}×{image.height}
            {notSent?.includes(image.fileId) && (
              <span className="badge badge-muted" title="Older than the images each request carries: the next request sends a one-line note instead">
                not sent
              </span>
            )}
          </span>
        </li>
      ))}
    </ul>
  );
}

function StoredImage({ image }: { image: ImageBlock }) {
  const actions = useActions();
  const [blob, setBlob] = useState<Blob | null | undefined>();
  useEffect(() => {
    let live = true;
    void actions.readImage(image.fileId).then((found) => live && setBlob(found ?? null));
    return () => {
      live = false;
    };
  }, [actions, image.fileId]);
  if (blob === null) return <span className="message-image-missing">The image file was deleted.</span>;
  if (!blob) return <span className="message-image-loading" role="img" aria-label={image.name} style={{ aspectRatio: `${image.width} / ${image.height}` }} />;
  return <BlobImage blob={blob} alt={image.name} className="message-image" />;
}
