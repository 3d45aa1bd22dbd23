/**
 * The page's side of the image Worker: each file is posted to it and comes back checked
 * and scaled (imageWorker.ts). Where no Worker can start, the same work runs in the page.
 */
import { fitImage, type PreparedImage } from './fitImage';

let worker: Worker | null | undefined;
let nextId = 0;
const waiting = new Map<number, (result: PreparedImage) => void>();

function imageWorker(): Worker | null {
  if (worker !== undefined) return worker;
  try {
    worker = new Worker(new URL('./imageWorker.ts', import.meta.url), { type: 'module', name: 'windowpane-images' });
    worker.addEventListener('message', (event: MessageEvent<{ id: number; result: PreparedImage }>) => {
      waiting.get(event.data.id)?.(event.data.result);
      waiting.delete(event.data.id);
    });
    worker.addEventListener('error', () => {
      // From now on the page does the work; files waiting are done there.
      worker?.terminate();
      worker = null;
      for (const [id, resolve] of waiting) {
        waiting.delete(id);
        void fitImage(pending.get(id)!).then(resolve);
      }
    });
  } catch {
    worker = null;
  }
  return worker;
}

const pending = new Map<number, Blob>();

/** Checks an image file and scales it down to what the providers use, off the main thread where it can. */
export function prepareImage(file: Blob): Promise<PreparedImage> {
  const target = imageWorker();
  if (!target) return fitImage(file);
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, file);
    waiting.set(id, (result) => {
      pending.delete(id);
      resolve(result);
    });
    target.postMessage({ id, file });
  });
}
