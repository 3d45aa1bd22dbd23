/**
 * A search client whose code is loaded on first use: MiniSearch and the Worker's client
 * are a chunk of their own, fetched (and the index loaded) when the app asks `prepare`,
 * once the conversation list is shown, or at the first search, never before the first
 * screen.
 */
import { createSearchBuildReporter, type ReportsSearchBuilds } from './searchBuild';
import type { SearchClient } from './searchIndex';
import type { StorageChange } from './sync';

export interface LazySearchClient extends SearchClient, ReportsSearchBuilds {
  /** Loads the client and starts loading the index, without a query; later calls do nothing. */
  prepare(): void;
}

/**
 * `load` makes the real client (importing its module) and starts its index; it is called
 * by `prepare` or the first search, and again by the next search if it failed. Changes
 * notified before the client is there are kept, each record once, and passed on to it:
 * a message changed in place would otherwise be missed by an index loaded from a save.
 */
export function lazySearch(load: () => Promise<SearchClient & ReportsSearchBuilds>): LazySearchClient {
  const builds = createSearchBuildReporter();
  const pending = new Map<string, StorageChange>();
  let client: (SearchClient & ReportsSearchBuilds) | undefined;
  let loading: Promise<SearchClient & ReportsSearchBuilds> | undefined;
  let closed = false;

  function loaded(): Promise<SearchClient & ReportsSearchBuilds> {
    loading ??= load().then(
      (real) => {
        if (closed) {
          real.close();
          return real;
        }
        client = real;
        real.watchBuild((progress) => builds.report(progress));
        for (const change of pending.values()) real.notify(change);
        pending.clear();
        return real;
      },
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    );
    return loading;
  }

  return {
    prepare() {
      if (!closed) loaded().catch(() => undefined); // the first search tries again and reports the failure
    },
    async search(query, limit, options) {
      return (await loaded()).search(query, limit, options);
    },
    async details(query, conversationIds) {
      return (await loaded()).details(query, conversationIds);
    },
    notify(change) {
      if (client) client.notify(change);
      else if (!closed)
        pending.set(`${change.type}\u0000${change.conversationId ?? ''}\u0000${change.messageId ?? ''}\u0000${change.settingKey ?? ''}`, change);
    },
    watchBuild(listener) {
      return builds.watch(listener);
    },
    close() {
      closed = true;
      pending.clear();
      builds.end();
      client?.close();
    },
  };
}
