// Shared setup for unit and component tests (jsdom).
import '@testing-library/jest-dom/vitest';
import 'fake-indexeddb/auto';
import { cleanup, configure } from '@testing-library/react';
import { afterEach } from 'vitest';
import { guardReads } from './readGuard';

// A test that reads outside the repository fails where it reads (see readGuard.ts).
guardReads();

// The first render of a lazily loaded part (the markdown renderer) transforms its modules
// on first import; on a busy two-core machine that can pass the default one second of findBy*.
configure({ asyncUtilTimeout: 5000 });

// Browsers read a File with `arrayBuffer()`; jsdom's Blob has only FileReader.
if (typeof Blob !== 'undefined' && !Blob.prototype.arrayBuffer) {
  Blob.prototype.arrayBuffer = function arrayBuffer(this: Blob) {
    return new Promise<ArrayBuffer>((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(reader.result as ArrayBuffer);
      reader.onerror = () => reject(reader.error);
      reader.readAsArrayBuffer(this);
    });
  };
}

afterEach(() => {
  cleanup();
});
