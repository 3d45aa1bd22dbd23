/**
 * Progress of a full build of the search index (the first after an upgrade, or one
 * replacing a lost or outdated index), which can take minutes over a year of history.
 * The index reports it here, in the Worker or in the page, so the app can say so.
 */

/** How far a build has got: `done` of `total` messages indexed. */
export interface SearchIndexProgress {
  done: number;
  total: number;
}

/** Told each step of a build, then null when it ends (finished or broken off). */
export type SearchBuildListener = (progress: SearchIndexProgress | null) => void;

/** A search index, or the client of one, that says when it is being built. */
export interface ReportsSearchBuilds {
  /**
   * Tells `listener` how a full build of the index is going (the one running now at once,
   * if any), then null when it ends; returns what stops it. Keeping the index up to date
   * with each change is no build, and neither is one over so few messages that it is over
   * before it could be shown. While a build runs, searches answer from what is indexed so
   * far; asking again once it ends gives every match.
   */
  watchBuild(listener: SearchBuildListener): () => void;
}

export interface SearchBuildReporter {
  report(progress: SearchIndexProgress | null): void;
  /** Tells `listener` of the build running now, if one is, and of each later step; returns what stops it. */
  watch(listener: SearchBuildListener): () => void;
  /** The index closed: listeners hear nothing more, not even that the build ended. */
  end(): void;
}

/** Remembers the last step, so a listener that comes late (the app, once storage opens) hears where the build is. */
export function createSearchBuildReporter(): SearchBuildReporter {
  let current: SearchIndexProgress | null = null;
  const listeners = new Set<SearchBuildListener>();
  return {
    report(progress) {
      if (progress === null && current === null) return;
      current = progress === null ? null : { ...progress };
      // One stopped by another's call is not called after it.
      for (const listener of [...listeners]) if (listeners.has(listener)) listener(progress);
    },
    watch(listener) {
      listeners.add(listener);
      if (current) listener({ ...current });
      return () => void listeners.delete(listener);
    },
    end() {
      current = null;
      listeners.clear();
    },
  };
}
