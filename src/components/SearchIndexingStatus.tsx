import type { SearchIndexing } from '../store';

const count = (n: number) => n.toLocaleString('en-US');

/**
 * Under the search box while the search index is being built: how far it has got, and
 * that results found meanwhile may be incomplete. Gone once the index is ready. While a
 * search's results come from the index's most recent conversations only (`olderLoading`:
 * it is still loading after a start), a line says older ones are still searched.
 */
export function SearchIndexingStatus({
  indexing,
  searching,
  olderLoading = false,
}: {
  indexing: SearchIndexing | null;
  searching: boolean;
  olderLoading?: boolean;
}) {
  if (!indexing) {
    if (!searching || !olderLoading) return null;
    return (
      <div className="search-status" role="status" aria-live="polite">
        <p>Searching older conversations…</p>
      </div>
    );
  }
  return (
    <div className="search-status" role="status" aria-live="polite">
      <p>
        Indexing messages for search…
        {/* The count changes every 500 messages: seen, not announced each time. */}
        <span aria-hidden="true">
          {' '}
          {count(indexing.done)} of {count(indexing.total)}
        </span>
      </p>
      {searching && <p>Results may be incomplete until indexing finishes.</p>}
    </div>
  );
}
