import { useEffect, useState } from 'react';

function carriesFiles(event: DragEvent): boolean {
  return event.dataTransfer?.types.includes('Files') ?? false;
}

/**
 * Files dropped anywhere on the window are imported (`onImport`), with a hint while they are
 * dragged. A drop the composer takes (files to attach) is its own: it marks the event
 * handled, and then this hint hides and the drop is left alone.
 */
export function DropImport({ onImport }: { onImport: (files: File[]) => void }) {
  const [dragging, setDragging] = useState(false);
  useEffect(() => {
    function onDragOver(event: DragEvent) {
      if (!carriesFiles(event)) return;
      // Taken by the composer: its own hint shows.
      if (event.defaultPrevented) {
        setDragging(false);
        return;
      }
      event.preventDefault(); // else the browser opens the file in place of the app
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
      setDragging(true);
    }
    function onDragLeave(event: DragEvent) {
      if (event.relatedTarget === null) setDragging(false);
    }
    function onDrop(event: DragEvent) {
      setDragging(false);
      if (event.defaultPrevented || !event.dataTransfer || event.dataTransfer.files.length === 0) return;
      event.preventDefault();
      onImport(Array.from(event.dataTransfer.files));
    }
    const onDragEnd = () => setDragging(false);
    window.addEventListener('dragover', onDragOver);
    window.addEventListener('dragleave', onDragLeave);
    window.addEventListener('drop', onDrop);
    window.addEventListener('dragend', onDragEnd);
    return () => {
      window.removeEventListener('dragover', onDragOver);
      window.removeEventListener('dragleave', onDragLeave);
      window.removeEventListener('drop', onDrop);
      window.removeEventListener('dragend', onDragEnd);
    };
  }, [onImport]);
  if (!dragging) return null;
  return (
    <div className="drop-import" aria-hidden="true">
      <p>Drop a ChatGPT, Claude or Windowpane export (.json or .zip) to import it</p>
    </div>
  );
}
