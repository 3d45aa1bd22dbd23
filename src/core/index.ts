// The core's one public surface. Files inside src/core import each other directly;
// everything outside src/core imports from here.
export * from './errors';
export * from './conversation';
export * from './messages';
export * from './wire';
export * from './tokens/types';
export * from './tokens/chars4';
export * from './tokens/countedText';
export * from './tokens/estimate';
export * from './tokens/calibration';
export * from './tokens/countCache';
export * from './models';
export * from './cost';
export * from './contextErrors';
