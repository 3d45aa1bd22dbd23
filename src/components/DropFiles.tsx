import { useEffect, useState } from 'react';
import { isExportFile } from '../store';

function carriesFiles(event: DragEvent): boolean {
  return event.dataTransfer?.types.includes('Files') ?? false;
}

type Dragged = 'exports' | 'files' | 'both';

/** What is being dragged, from the types the browser tells while dragging (names come only with the drop). */
function draggedKind(event: DragEvent): Dragged {
  const types = [...(event.dataTransfer?.items ?? [])].filter((item) => item.kind === 'file').map((item) => item.type);
  const exports = types.filter((type) => isExportFile({ name: '', type })).length;
  return exports === 0 ? 'files' : exports === types.length ? 'exports' : 'both';
}

const HINTS: Record<Dragged, string> = {
  exports: 'Drop a ChatGPT, Claude or Windowpane export (.json or .zip) to import it',
  files: 'Drop to add to your next message',
  both: 'Drop: exports (.json, .zip) are imported, the other files added to your next message',
};

/**
 * Files dropped anywhere on the window (`onDrop`): exports are imported, other files added to
 * the next message, with a hint while they are dragged saying which. A drop the composer
 * takes is its own: it marks the event handled, and then this hint hides and the drop is
 * left alone.
 */
export function DropFiles({ onDrop }: { onDrop: (files: File[]) => void }) {
  const [dragging, setDragging] = useState<Dragged | null>(null);
  useEffect(() => {
    function onDragOver(event: DragEvent) {
      if (!carriesFiles(event)) return;
      // Taken by the composer: its own hint shows.
      if (event.defaultPrevented) {
        setDragging(null);
        return;
      }
      event.preventDefault(); // else the browser opens the file in place of the app
      if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
      setDragging(draggedKind(event));
    }
    function onDragLeave(event: DragEvent) {
      if (event.relatedTarget === null) setDragging(null);
    }
    function onDropped(event: DragEvent) {
      setDragging(null);
      if (event.defaultPrevented || !event.dataTransfer || event.dataTransfer.files.length === 0) return;
      event.preventDefault();
      onDrop(Array.from(event.dataTransfer.files));
    }
    const onDragEnd = () => setDragging(null);
    window.addEventListener('dragover', onDragOver);
    window.addEventListener('dragleave', onDragLeave);
    window.addEventListener('drop', onDropped);
    window.addEventListener('dragend', onDragEnd);
    return () => {
      window.removeEventListener('dragover', onDragOver);
      window.removeEventListener('dragleave', onDragLeave);
      window.removeEventListener('drop', onDropped);
      window.removeEventListener('dragend', onDragEnd);
    };
  }, [onDrop]);
  if (!dragging) return null;
  return (
    <div className="drop-import" aria-hidden="true">
      <p>{HINTS[dragging]}</p>
    </div>
  );
}
