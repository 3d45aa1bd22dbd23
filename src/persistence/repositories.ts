/**
 * The storage API the app uses, one repository per aggregate. Every call is one
 * transaction through `withTransaction`; every committed write is announced to the other
 * tabs and the search index. A failed write throws a WindowpaneError and leaves storage as
 * it was; the caller keeps its in-memory copy.
 */
import { createConversationRepository, type ConversationRepository } from './conversationRepository';
import type { WindowpaneDb } from './db';
import { createFileRepository, type FileRepository } from './fileRepository';
import { createRepositoryContext, type RepositoryOptions } from './repositoryContext';
import { createSearchRepository, type SearchRepository } from './searchRepository';
import { createSettingsRepository, type SettingsRepository } from './settingsRepository';
import { createSyncRepository, type SyncRepository } from './syncRepository';
import { createTransferRepository, type TransferRepository } from './transferRepository';

export interface Repositories {
  /** Conversations and their messages; how much room each takes. */
  conversations: ConversationRepository;
  /** Attachments, and the images and PDFs sent with messages. */
  files: FileRepository;
  /** Settings, token calibration and the summary cache. */
  settings: SettingsRepository;
  search: SearchRepository;
  /** Export and import. */
  transfer: TransferRepository;
  /** What sync reads, applies and remembers of every record. */
  sync: SyncRepository;
}

/** Every repository over `db`, sharing one clock, one id source and one announcement of writes. */
export function createRepositories(db: WindowpaneDb, options: RepositoryOptions = {}): Repositories {
  const context = createRepositoryContext(db, options);
  return {
    conversations: createConversationRepository(context),
    files: createFileRepository(context),
    settings: createSettingsRepository(context),
    search: createSearchRepository(context),
    transfer: createTransferRepository(context),
    sync: createSyncRepository(context),
  };
}
