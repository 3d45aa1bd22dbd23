// The side-effect entry of fake-indexeddb ships no types: it only replaces the page's IndexedDB globals.
declare module 'fake-indexeddb/auto';
