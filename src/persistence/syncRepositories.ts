/**
 * The repositories of the sync engine: the app's own, and the one that reads, applies and
 * remembers every record for sync. Apart from `repositories.ts` so that only the sync Worker
 * (or the page's sync chunk where no Worker starts) loads the sync repository, not the first screen.
 */
import type { WindowpaneDb } from './db';
import { repositoriesOf, type Repositories } from './repositories';
import { createRepositoryContext, type RepositoryOptions } from './repositoryContext';
import { createSyncRepository, type SyncRepository } from './syncRepository';

export interface SyncRepositories extends Repositories {
  /** What sync reads, applies and remembers of every record. */
  sync: SyncRepository;
}

/** Every repository over `db`, the sync repository among them, sharing one context. */
export function createSyncRepositories(db: WindowpaneDb, options: RepositoryOptions = {}): SyncRepositories {
  const context = createRepositoryContext(db, options);
  return { ...repositoriesOf(context), sync: createSyncRepository(context) };
}
