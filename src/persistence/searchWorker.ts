/**
 * The search Worker: a thin message loop around the index (see serveSearchRequests) over
 * its own connection to the app's database. A newer tab upgrading the database closes
 * that connection (openWindowpaneDb does); searches then fail and the page takes over.
 */
import { openWindowpaneDb } from './db';
import { serveSearchRequests, type SearchReply, type SearchRequest } from './searchClient';

const scope = globalThis as unknown as {
  postMessage(message: SearchReply): void;
  addEventListener(type: 'message', listener: (event: MessageEvent<SearchRequest>) => void): void;
};

const handle = serveSearchRequests(
  (name) => openWindowpaneDb({ name }),
  (message) => scope.postMessage(message),
);
scope.addEventListener('message', ({ data }) => handle(data));
