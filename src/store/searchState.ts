/** The sidebar's search: what is typed, what it found, and the search index being built meanwhile. */
import type { SearchHit, SearchIndexProgress } from '../persistence';

/** A full build of the search index in progress: `done` of `total` messages indexed. */
export type SearchIndexing = SearchIndexProgress;

export interface SearchState {
  query: string;
  searchHits: SearchHit[] | null;
  /** A full build of the search index running (its progress), during which hits may miss matches; null when none. */
  searchIndexing: SearchIndexing | null;
}

export const initialSearchState = (): SearchState => ({ query: '', searchHits: null, searchIndexing: null });
