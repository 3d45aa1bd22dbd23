/** PDF.js's Worker, bundled as one of the app's own files: importing it starts its message handler. */
import 'pdfjs-dist/build/pdf.worker.min.mjs';
