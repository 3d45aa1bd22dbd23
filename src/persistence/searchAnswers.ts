/**
 * How the search index answers a query from its parts (searchParts.ts): the conversations
 * that match, most recently updated first, and the best match and snippet of those a list
 * shows, their messages read in one transaction.
 */
import { searchSnippet, searchTerms } from '../core';
import { withTransaction, type WindowpaneDb } from './db';
import { documentText, TITLE_PREFIX, type IndexParts } from './searchParts';

export interface SearchHit {
  conversationId: string;
  title: string;
  /**
   * Where the best match is: the title, or the message `messageId`. `pending`: the
   * conversation matches, but its best match and snippet (empty until then) are not read
   * yet; `SearchClient.details` reads them, for the rows a list shows.
   */
  matchedIn: 'title' | 'message' | 'pending';
  messageId?: string;
  /** The matching text with some context, whitespace collapsed, at most ~160 characters. */
  snippet: string;
  /** Where the first matching word is in `snippet` (UTF-16 offsets), to highlight it. */
  matchStart?: number;
  matchLength?: number;
  /** Epoch ms: when the message was written, or the conversation created for a title hit. */
  createdAt?: number;
}

/** How many hits `search` gives in full, about what the sidebar shows at once; the rest wait for `details`. */
export const DETAILED_HITS = 20;

/**
 * Where the last query's time went, as a performance measure (`search: wait`, until the
 * index could answer it, `search: lookup`, `search: snippets read`, `search: snippets cut`;
 * the details of hits past the first rows as `search: details lookup` and so on) in the timeline of the thread it ran on, and the
 * last load's and save's (`search: load read`, `… load parse`, `… load catch up`, `… save
 * serialize`, `… save write`): the benchmarks read them, and so does a profiler. Only the
 * latest of each is kept.
 */
export function timed(phase: string, start: number, end = performance.now()): number {
  const name = `search: ${phase}`;
  performance.clearMeasures(name);
  performance.measure(name, { start, end });
  return end;
}

/**
 * Queries before the index's own reads: `answer` runs a query's lookup and reads, and
 * `quiet` resolves once none is running. The load and a build wait for it before each read,
 * so a query's snippet read queues behind at most one of theirs, not a stream of them (the
 * database serves reads in turn).
 */
export function createQueriesFirst() {
  let answering = 0;
  let whenQuiet: Array<() => void> = [];
  return {
    quiet(): Promise<void> {
      return answering === 0 ? Promise.resolve() : new Promise((resolve) => whenQuiet.push(resolve));
    },
    async answer<T>(work: () => Promise<T>): Promise<T> {
      answering++;
      try {
        return await work();
      } finally {
        answering--;
        if (answering === 0) {
          const waiting = whenQuiet;
          whenQuiet = [];
          for (const wake of waiting) wake();
        }
      }
    },
  };
}

/** Answers queries from `index`, reading snippets from `db`. */
export function createSearchAnswers(db: WindowpaneDb, index: IndexParts) {
  const { conversations, bestOf } = index;

  /** The hits for `chosen` (conversation and its best document), with snippets, their messages read in one transaction; `measured` prefixes its measures. */
  async function withSnippets(chosen: Array<[string, string]>, terms: readonly string[], began: number, measured = ''): Promise<SearchHit[]> {
    const messageIds = chosen.map(([, id]) => id).filter((id) => !id.startsWith(TITLE_PREFIX));
    const looked = performance.now();
    const messages =
      messageIds.length === 0
        ? []
        : await withTransaction(db, ['messages'], 'readonly', 'search conversations', (tx) => Promise.all(messageIds.map((id) => tx.store.get(id))));
    const read = performance.now();
    const byId = new Map(messages.filter((m) => m !== undefined).map((m) => [m.id, m]));
    const out: SearchHit[] = [];
    for (const [conversationId, id] of chosen) {
      const entry = conversations.get(conversationId);
      if (!entry) continue;
      if (id.startsWith(TITLE_PREFIX)) {
        out.push({ conversationId, title: entry.title, matchedIn: 'title', ...searchSnippet(entry.title, terms), createdAt: entry.createdAt });
        continue;
      }
      const message = byId.get(id);
      if (!message) continue; // deleted since: its notice is on its way
      out.push({
        conversationId,
        title: entry.title,
        matchedIn: 'message',
        messageId: id,
        ...searchSnippet(documentText(message), terms),
        createdAt: message.createdAt,
      });
    }
    timed(`${measured}lookup`, began, looked);
    timed(`${measured}snippets read`, looked, read);
    timed(`${measured}snippets cut`, read);
    return out;
  }

  async function hits(query: string, limit: number): Promise<SearchHit[]> {
    const terms = [...new Set(searchTerms(query))].filter((term) => term !== '');
    if (terms.length === 0) return [];
    const began = performance.now();
    // Most recently updated first; equals in the order of their ids, whichever part holds them.
    const byRecency = (a: string, b: string) => conversations.get(b)!.updatedAt - conversations.get(a)!.updatedAt || (a < b ? -1 : a > b ? 1 : 0);
    // The most recent conversations are scored first, before anything else asks the index: a
    // search drops the postings of replaced documents it meets, which moves later scores a
    // little, and this keeps the best match the one a single search always chose.
    const recent = new Set([...conversations.keys()].sort(byRecency).slice(0, DETAILED_HITS));
    const found = index.newestMatches(query, terms, recent, limit);
    const best = found.best;
    const matching = [...found.matching].filter((id) => conversations.has(id));
    const chosen = matching.sort(byRecency).slice(0, limit);
    const shown = chosen.slice(0, DETAILED_HITS);
    const unscored = shown.filter((id) => !best.has(id));
    if (unscored.length > 0) for (const [id, doc] of bestOf(query, new Set(unscored))) best.set(id, doc);
    const detailed = await withSnippets(
      shown.flatMap((id) => (best.has(id) ? [[id, best.get(id)!] as [string, string]] : [])),
      terms,
      began,
    );
    const pending = chosen
      .slice(DETAILED_HITS)
      .flatMap((id): SearchHit[] =>
        conversations.has(id) ? [{ conversationId: id, title: conversations.get(id)!.title, matchedIn: 'pending', snippet: '' }] : [],
      );
    return [...detailed, ...pending];
  }

  async function details(query: string, conversationIds: readonly string[]): Promise<SearchHit[]> {
    const terms = [...new Set(searchTerms(query))].filter((term) => term !== '');
    if (terms.length === 0 || conversationIds.length === 0) return [];
    const began = performance.now();
    const best = bestOf(query, new Set(conversationIds));
    return withSnippets(
      conversationIds.flatMap((id) => (best.has(id) ? [[id, best.get(id)!] as [string, string]] : [])),
      terms,
      began,
      'details ',
    );
  }

  return { hits, details };
}
