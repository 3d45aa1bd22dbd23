// The persistence layer's public surface: the store imports from here.
export * from './base64';
export * from './db';
export * from './persistentStorage';
export * from './repository';
export type { SearchIndexProgress } from './searchBuild';
export * from './storage';
export * from './storageErrors';
export * from './storageReport';
export * from './streamWriter';
export * from './sync';
export * from './transferFiles';
