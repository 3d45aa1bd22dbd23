// The persistence layer's public surface: the store imports from here.
export * from './base64';
export * from './conversationRepository';
export * from './db';
export * from './fileRepository';
export * from './persistentStorage';
export * from './repositories';
export * from './repositoryContext';
export type { SearchIndexProgress } from './searchBuild';
export * from './searchRepository';
export * from './settingsRepository';
export * from './storage';
export * from './storageErrors';
// Measuring is loaded on first use (Settings → Storage): the store's storageView.ts imports it directly.
export type { ConversationStorage, StorageReport } from './storageReport';
export * from './streamWriter';
export * from './sync';
export * from './syncRepository';
export * from './syncRepositories';
// Import and export are loaded on first use: the store's transferActions.ts, itself loaded with import(),
// imports transferFiles.ts directly, so that only its types are re-exported here.
export type { ImportProgress } from './transferFiles';
export * from './transferRepository';
