/**
 * The storage API the app uses, one repository per aggregate. Every call is one
 * transaction through `withTransaction`; every committed write is announced to the other
 * tabs and the search index. A failed write throws a WindowpaneError and leaves storage as
 * it was; the caller keeps its in-memory copy.
 */
import { createConversationRepository, type ConversationRepository } from './conversationRepository';
import type { WindowpaneDb } from './db';
import { createFileRepository, type FileRepository } from './fileRepository';
import { createRepositoryContext, type RepositoryContext, type RepositoryOptions } from './repositoryContext';
import { createSearchRepository, type SearchRepository } from './searchRepository';
import { createSettingsRepository, type SettingsRepository } from './settingsRepository';
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
}

/** Every repository over `db`, sharing one clock, one id source and one announcement of writes. */
export function createRepositories(db: WindowpaneDb, options: RepositoryOptions = {}): Repositories {
  return repositoriesOf(createRepositoryContext(db, options));
}

/** Every repository over one context (what sync's repositories add to, see `syncRepositories.ts`). */
export function repositoriesOf(context: RepositoryContext): Repositories {
  return {
    conversations: createConversationRepository(context),
    files: createFileRepository(context),
    settings: createSettingsRepository(context),
    search: createSearchRepository(context),
    transfer: createTransferRepository(context),
  };
}
