// The core's one public surface. Files inside src/core import each other directly;
// everything outside src/core imports from here.
export * from './errors';
export * from './conversation';
export * from './messages';
export * from './wire';
