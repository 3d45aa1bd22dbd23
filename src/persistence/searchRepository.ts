/** Full-text search over every conversation, answered by the search index (see searchIndex.ts). */
import type { RepositoryContext } from './repositoryContext';
import type { SearchAnswer, SearchHit } from './searchIndex';

export type { SearchAnswer, SearchHit } from './searchIndex';

export interface SearchRepository {
  /**
   * Conversations whose title or messages (every branch, tool results included) hold every
   * word of `query` as a word or word prefix, case and accents ignored; most recently
   * updated first, one hit per conversation (its best match). Asks the search index, so it
   * costs about the same whatever is stored. A message hit names the message, so the branch
   * holding it can be opened. A message still streaming is found once it is complete.
   * While the saved index loads after a start, the answer comes from the parts loaded (the
   * most recently updated conversations first) and says so; asked again with `after` (its
   * `loading.loaded`), it answers once more is loaded.
   */
  searchConversations(query: string, options?: { limit?: number; after?: number }): Promise<SearchAnswer>;
  /**
   * Fills in hits `searchConversations` left `pending` (past the first rows): the hits of
   * `query` in the conversations `conversationIds`, in that order, each with its best match
   * and snippet. A conversation that no longer matches has none.
   */
  searchHitDetails(query: string, conversationIds: readonly string[]): Promise<SearchHit[]>;
}

export function createSearchRepository({ search }: RepositoryContext): SearchRepository {
  return {
    async searchConversations(query, { limit = 50, after } = {}) {
      if (query.trim() === '') return { hits: [] };
      return search.search(query, limit, after === undefined ? {} : { after });
    },
    async searchHitDetails(query, conversationIds) {
      if (query.trim() === '' || conversationIds.length === 0) return [];
      return search.details(query, conversationIds);
    },
  };
}
