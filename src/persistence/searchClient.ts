/**
 * The page's side of the search Worker (searchWorker.ts): the index is built, updated,
 * queried and saved there, off the main thread, and the page only posts change notices
 * and queries. Should the Worker fail to start or answer, the same index runs in the page
 * instead (searchIndex.ts), so search keeps working, only on the main thread.
 */
import type { WindowpaneDb } from './db';
import { timed } from './searchAnswers';
import { createSearchBuildReporter, type ReportsSearchBuilds, type SearchIndexProgress } from './searchBuild';
import { createSearchEngine, type SearchAnswer, type SearchClient, type SearchEngine, type SearchHit } from './searchIndex';
import type { StorageChange } from './sync';

/** What the page posts to the Worker. `open` comes first and names the database. */
export type SearchRequest =
  | { type: 'open'; name: string }
  | { type: 'notify'; change: StorageChange }
  | { type: 'search'; id: number; query: string; limit: number; after?: number }
  | { type: 'details'; id: number; query: string; conversationIds: string[] };

/**
 * What the Worker answers to a `search` (`loading` as in `SearchAnswer`) or `details`, and how a build of the index goes
 * (see `ReportsSearchBuilds.watchBuild`), a message per batch read.
 */
export type SearchReply =
  | { type: 'hits'; id: number; hits: SearchHit[]; loading?: SearchAnswer['loading'] }
  | { type: 'failed'; id: number; message: string }
  | { type: 'build'; progress: SearchIndexProgress | null };

/** A query request before the client numbers it. */
type SearchAsk = DistributiveOmit<Extract<SearchRequest, { type: 'search' | 'details' }>, 'id'>;
type DistributiveOmit<T, K extends keyof T> = T extends unknown ? Omit<T, K> : never;

/** The parts of a Worker the client uses. */
export interface SearchWorkerPort {
  postMessage(message: SearchRequest): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<SearchReply>) => void): void;
  addEventListener(type: 'error', listener: () => void): void;
  terminate(): void;
}

/** Starts the search Worker as a module Worker of the app's own origin (CSP: worker-src 'self'). */
export function spawnSearchWorker(): SearchWorkerPort {
  return new Worker(new URL('./searchWorker.ts', import.meta.url), { type: 'module', name: 'windowpane-search' });
}

/**
 * A search client backed by `worker` over the database `name`. `inPage` makes the
 * stand-in used from the first failure on; searches waiting then are asked of it.
 */
export function createWorkerSearch(
  worker: SearchWorkerPort,
  name: string,
  inPage: () => SearchClient & ReportsSearchBuilds,
): SearchClient & ReportsSearchBuilds {
  let nextId = 0;
  // Each request waiting for the Worker, and how to ask the page's index instead should the Worker fail.
  const waiting = new Map<
    number,
    { ask: (client: SearchClient) => Promise<SearchAnswer>; resolve: (answer: SearchAnswer) => void; reject: (error: unknown) => void }
  >();
  let fallback: (SearchClient & ReportsSearchBuilds) | undefined;
  const builds = createSearchBuildReporter();

  function fallBack(): SearchClient & ReportsSearchBuilds {
    if (fallback) return fallback;
    fallback = inPage();
    worker.terminate();
    // The Worker's build ended with it; the page's own, if it needs one, reports from here on.
    builds.report(null);
    fallback.watchBuild((progress) => builds.report(progress));
    const orphans = [...waiting.values()];
    waiting.clear();
    for (const w of orphans) w.ask(fallback).then(w.resolve, w.reject);
    return fallback;
  }

  worker.addEventListener('message', ({ data }) => {
    if (data.type === 'build') {
      if (!fallback) builds.report(data.progress);
      return;
    }
    const request = waiting.get(data.id);
    if (!request) return;
    if (data.type === 'hits') {
      waiting.delete(data.id);
      request.resolve(data.loading ? { hits: data.hits, loading: data.loading } : { hits: data.hits });
    } else {
      fallBack();
    }
  });
  worker.addEventListener('error', () => void fallBack());
  worker.postMessage({ type: 'open', name });

  function ask(request: SearchAsk, inPage: (client: SearchClient) => Promise<SearchAnswer>): Promise<SearchAnswer> {
    if (fallback) return inPage(fallback);
    return new Promise((resolve, reject) => {
      const id = ++nextId;
      waiting.set(id, { ask: inPage, resolve, reject });
      worker.postMessage({ ...request, id });
    });
  }

  return {
    search(query, limit, options = {}) {
      const after = options.after === undefined ? {} : { after: options.after };
      return ask({ type: 'search', query, limit, ...after }, (client) => client.search(query, limit, after));
    },
    async details(query, conversationIds) {
      const answer = await ask({ type: 'details', query, conversationIds: [...conversationIds] }, async (client) => ({
        hits: await client.details(query, conversationIds),
      }));
      return answer.hits;
    },
    notify(change) {
      if (fallback) fallback.notify(change);
      else worker.postMessage({ type: 'notify', change: { ...change } });
    },
    watchBuild(listener) {
      return builds.watch(listener);
    },
    close() {
      builds.end();
      fallback?.close();
      worker.terminate();
    },
  };
}

/**
 * The Worker's side: answers requests in the order they come, over the database `open`
 * gives for the name in the `open` request, loading or rebuilding the index at once so the
 * first search rarely waits. searchWorker.ts wires it to the Worker's own messages.
 */
export function serveSearchRequests(open: (name: string) => Promise<WindowpaneDb>, reply: (message: SearchReply) => void): (request: SearchRequest) => void {
  let engine: Promise<SearchEngine> = Promise.reject(new Error('The search index was asked before its database was named.'));
  engine.catch(() => undefined);
  // The page shows only the latest query's hits: an older one still waiting is answered empty.
  let latest = 0;
  return (request) => {
    if (request.type === 'open') {
      engine = open(request.name).then((db) => {
        const opened = createSearchEngine(db);
        opened.watchBuild((progress) => reply({ type: 'build', progress }));
        opened.start().catch(() => undefined); // a search asks again, and reports the failure
        return opened;
      });
      engine.catch(() => undefined);
    } else if (request.type === 'notify') {
      void engine.then((e) => e.notify(request.change)).catch(() => undefined);
    } else if (request.type === 'details') {
      // Never superseded: the rows it fills are on screen.
      engine
        .then((e) => e.details(request.query, request.conversationIds))
        .then(
          (hits) => reply({ type: 'hits', id: request.id, hits }),
          (error: unknown) => reply({ type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) }),
        );
    } else {
      latest = Math.max(latest, request.id);
      const received = performance.now();
      engine
        .then((e) => e.search(request.query, request.limit, { after: request.after, superseded: () => request.id < latest }))
        .then(
          ({ hits, loading }) => {
            // From its arrival until its answer, under its id (the last few kept): the benchmarks split a query's time with it.
            performance.clearMeasures(`search: request ${request.id - 8}`);
            timed(`request ${request.id}`, received);
            reply(loading ? { type: 'hits', id: request.id, hits, loading } : { type: 'hits', id: request.id, hits });
          },
          (error: unknown) => reply({ type: 'failed', id: request.id, message: error instanceof Error ? error.message : String(error) }),
        );
    }
  };
}
