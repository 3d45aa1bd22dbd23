/**
 * How the search index answers a query without scoring every message that matches it: which
 * conversations match at all, then the best match of only those a list shows. Both ask
 * MiniSearch through its own search options; documents store their `conversationId`.
 */
import type MiniSearch from 'minisearch';

/**
 * The conversations holding a match of every term of `terms` (folded, as the index
 * stores them) in one document. Asks the index once per term with no document scored (`boostDocument`
 * sees every document a term's words are in, and answering 0 skips its scoring): a word
 * in every message costs a walk over its postings, not a score and a sort of each.
 */
export function matchingConversations(index: MiniSearch, terms: readonly string[]): Set<string> {
  const exact = { tokenize: (term: string) => [term], processTerm: (term: string) => term };
  const found = new Set<string>();
  let documents: Map<string, string> | undefined;
  for (const term of terms) {
    const next = new Map<string, string>();
    index.search(term, {
      ...exact,
      boostDocument: (id: string, _term, stored) => {
        if (!documents || documents.has(id)) next.set(id, stored!.conversationId as string);
        return 0;
      },
    });
    documents = next;
    if (documents.size === 0) break;
  }
  for (const conversationId of documents?.values() ?? []) found.add(conversationId);
  return found;
}

/**
 * The best match of `query` in each of the conversations `wanted`: the index scores only
 * their documents, and each conversation keeps its highest score (the first of equals, as
 * the index would have sorted them). For a query of one word, `seen` is told every
 * conversation it is in, as `matchingConversations` would, in the same walk.
 */
export function bestMatches(index: MiniSearch, query: string, wanted: ReadonlySet<string>, seen?: Set<string>): Map<string, string> {
  const best = new Map<string, { id: string; score: number }>();
  index.search(query, {
    boostDocument: (_id, _term, stored) => {
      const conversationId = stored!.conversationId as string;
      seen?.add(conversationId);
      return wanted.has(conversationId) ? 1 : 0;
    },
    filter: (result) => {
      const conversationId = result.conversationId as string;
      const kept = best.get(conversationId);
      if (!kept || result.score > kept.score) best.set(conversationId, { id: result.id as string, score: result.score });
      return false; // nothing is collected or sorted
    },
  });
  return new Map([...best].map(([conversationId, { id }]) => [conversationId, id]));
}
