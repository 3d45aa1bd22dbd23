/** The image Worker: decodes and scales images off the main thread (see fitImage.ts). */
import { fitImage } from './fitImage';

self.addEventListener('message', (event: MessageEvent<{ id: number; file: Blob }>) => {
  const { id, file } = event.data;
  void fitImage(file).then((result) => self.postMessage({ id, result }));
});
