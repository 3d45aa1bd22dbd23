import { measureElement, observeElementRect, useVirtualizer, type Virtualizer } from '@tanstack/react-virtual';
import { forwardRef, useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { usePhoneLayout } from './phoneLayout';

export interface ConversationItem {
  id: string;
  title: string;
  updatedAt: number;
  /** A line of matching text when the list is filtered by a search. */
  snippet?: string;
  /** The match to highlight in `snippet`, or in the title when there is no snippet (UTF-16 offsets). */
  match?: { start: number; length: number };
  /** Epoch ms of the matching message, shown beside the snippet. */
  matchedAt?: number;
}

/** `text` with `match` wrapped in a <mark>; the text alone when there is no usable range. */
function highlighted(text: string, match: ConversationItem['match']): React.ReactNode {
  if (!match || match.length <= 0 || match.start < 0 || match.start + match.length > text.length) return text;
  const end = match.start + match.length;
  return (
    <>
      {text.slice(0, match.start)}
      <mark>{text.slice(match.start, end)}</mark>
      {text.slice(end)}
    </>
  );
}

export interface ConversationListProps {
  items: ConversationItem[];
  activeId?: string;
  query: string;
  onQueryChange: (query: string) => void;
  /** What search says of itself, under the search box (the index being built). */
  searchStatus?: React.ReactNode;
  /** The search index is still being built: a search that finds nothing may find it later. */
  indexing?: boolean;
  /** The search index is still loading its older conversations: a search that finds nothing among the recent ones may find it there. */
  olderLoading?: boolean;
  onNew: () => void;
  onSelect: (id: string) => void;
  onRename: (id: string, title: string) => void;
  onDelete: (id: string) => void;
  /** Extra controls for the bottom of the sidebar (import, settings…). */
  footer?: React.ReactNode;
  /** Told the ids of the rows in the page (those in view and a few either side) whenever they or the items change. */
  onRowsShown?: (ids: string[]) => void;
}

/** Until the list is laid out (or where nothing is, as in a test DOM), it is taken to be this tall, and each row this tall. */
const UNMEASURED = { width: 260, height: 800 };
const ROW_ESTIMATE = 40;

/** Measures the list, reading a height of 0 (not laid out yet) as UNMEASURED so the first rows show at once. */
function observeListRect(instance: Virtualizer<HTMLUListElement, Element>, cb: (rect: { width: number; height: number }) => void) {
  return observeElementRect(instance, (rect) => cb(rect.height > 0 ? rect : UNMEASURED));
}

/**
 * The sidebar: new chat, search, and the conversations with rename and delete. The list is
 * virtualized (a year of history is a thousand conversations; only those in view are in the
 * page), so the keyboard moves between conversations with the arrow keys, Home and End.
 */
export const ConversationList = forwardRef<HTMLInputElement, ConversationListProps>(function ConversationList(
  { items, activeId, query, onQueryChange, searchStatus, indexing, olderLoading, onNew, onSelect, onRename, onDelete, footer, onRowsShown },
  searchRef,
) {
  const [renaming, setRenaming] = useState<string | null>(null);
  const [title, setTitle] = useState('');
  // A phone has no Ctrl+K to offer.
  const phone = usePhoneLayout();
  const listRef = useRef<HTMLUListElement>(null);
  // eslint-disable-next-line react-hooks/incompatible-library -- not built with the React Compiler; the virtualizer re-renders itself
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => listRef.current,
    estimateSize: () => ROW_ESTIMATE,
    measureElement: (element, entry, instance) => measureElement(element, entry, instance) || ROW_ESTIMATE,
    gap: 2,
    overscan: 8,
    getItemKey: (index) => items[index]?.id ?? index,
    initialRect: UNMEASURED,
    observeElementRect: observeListRect,
  });

  // Another search (typed, changed or cleared) lists from the top: its first rows are the most recent hits, the
  // ones its answer has read. Left scrolled down, the list would show the end of the hits, rows still to be read.
  const listedQuery = useRef(query);
  useLayoutEffect(() => {
    if (listedQuery.current === query) return;
    listedQuery.current = query;
    if ((listRef.current?.scrollTop ?? 0) > 0) virtualizer.scrollToOffset(0);
  }, [query, virtualizer]);

  const shownKey = virtualizer
    .getVirtualItems()
    .flatMap((row) => (items[row.index] ? [items[row.index]!.id] : []))
    .join('\n');
  useEffect(() => {
    if (onRowsShown && shownKey !== '') onRowsShown(shownKey.split('\n'));
  }, [shownKey, items, onRowsShown]);

  /** Moves focus to the conversation at `index`, bringing it into view first. */
  function focusItem(index: number) {
    const target = Math.max(0, Math.min(items.length - 1, index));
    virtualizer.scrollToIndex(target, { align: 'auto' });
    const focus = (tries: number) => {
      const button = listRef.current?.querySelector<HTMLButtonElement>(`li[data-index="${target}"] .conversation-link`);
      if (button) button.focus();
      else if (tries > 0) requestAnimationFrame(() => focus(tries - 1));
    };
    focus(10);
  }

  function onLinkKey(event: KeyboardEvent<HTMLButtonElement>, index: number) {
    const next = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: items.length - 1 }[event.key];
    if (next === undefined) return;
    event.preventDefault();
    focusItem(next);
  }

  return (
    <nav className="sidebar" aria-label="Conversations">
      <div className="sidebar-top">
        <span className="brand">Windowpane</span>
        <button type="button" className="primary" onClick={onNew} title="New chat (Ctrl+Shift+O)">
          New chat
        </button>
      </div>
      <input
        ref={searchRef}
        type="search"
        className="search"
        aria-label="Search conversations"
        placeholder={phone ? 'Search' : 'Search (Ctrl+K)'}
        value={query}
        onChange={(e) => onQueryChange(e.target.value)}
        onKeyDown={(e) => {
          if (e.key !== 'Escape' || !query) return;
          // Escape clears a search first: in the phone's drawer it would close the drawer too. The next one closes it.
          e.preventDefault();
          onQueryChange('');
        }}
      />
      {searchStatus}
      {items.length === 0 && (
        <p className="muted empty-list">
          {query
            ? indexing
              ? 'Nothing found in what is indexed so far.'
              : olderLoading
                ? 'Nothing found in recent conversations.'
                : 'No conversation matches.'
            : 'No conversations yet.'}
        </p>
      )}
      <ul ref={listRef} className="conversation-list" hidden={items.length === 0}>
        <li aria-hidden="true" className="conversation-spacer" style={{ height: virtualizer.getVirtualItems()[0]?.start ?? 0 }} />
        {virtualizer.getVirtualItems().map((row) => {
          const item = items[row.index];
          if (!item) return null;
          return (
            <li key={item.id} data-index={row.index} ref={virtualizer.measureElement} className={item.id === activeId ? 'active' : undefined}>
              {renaming === item.id ? (
                <form
                  className="rename-form"
                  onSubmit={(e) => {
                    e.preventDefault();
                    if (title.trim()) onRename(item.id, title.trim());
                    setRenaming(null);
                  }}
                >
                  <input
                    aria-label="Conversation title"
                    value={title}
                    autoFocus
                    onChange={(e) => setTitle(e.target.value)}
                    onKeyDown={(e) => {
                      if (e.key !== 'Escape') return;
                      // Escape ends the rename only: in the phone's drawer it would close the drawer too.
                      e.preventDefault();
                      setRenaming(null);
                    }}
                    onBlur={() => setRenaming(null)}
                  />
                </form>
              ) : (
                <>
                  <button
                    type="button"
                    className="conversation-link"
                    aria-current={item.id === activeId ? 'page' : undefined}
                    onClick={() => onSelect(item.id)}
                    onKeyDown={(e) => onLinkKey(e, row.index)}
                  >
                    <span className="conversation-title">
                      {item.snippet === undefined && item.title ? highlighted(item.title, item.match) : item.title || 'Untitled'}
                    </span>
                    {item.snippet && (
                      <span className="conversation-snippet muted">
                        {item.matchedAt !== undefined && (
                          <time dateTime={new Date(item.matchedAt).toISOString()}>{new Date(item.matchedAt).toLocaleDateString()}</time>
                        )}
                        {highlighted(item.snippet, item.match)}
                      </span>
                    )}
                  </button>
                  <span className="conversation-actions">
                    <button
                      type="button"
                      className="icon-button"
                      aria-label={`Rename ${item.title || 'Untitled'}`}
                      title="Rename"
                      onClick={() => {
                        setTitle(item.title);
                        setRenaming(item.id);
                      }}
                    >
                      <Icon path="M4 20h4L19 9l-4-4L4 16v4zM14 6l4 4" />
                    </button>
                    <button
                      type="button"
                      className="icon-button"
                      aria-label={`Delete ${item.title || 'Untitled'}`}
                      title="Delete"
                      onClick={() => onDelete(item.id)}
                    >
                      <Icon path="M5 7h14M10 11v6M14 11v6M7 7l1 13h8l1-13M9 7V4h6v3" />
                    </button>
                  </span>
                </>
              )}
            </li>
          );
        })}
        <li
          aria-hidden="true"
          className="conversation-spacer"
          style={{ height: Math.max(0, virtualizer.getTotalSize() - (virtualizer.getVirtualItems().at(-1)?.end ?? 0)) }}
        />
      </ul>
      {footer && <div className="sidebar-footer">{footer}</div>}
    </nav>
  );
});

function Icon({ path }: { path: string }) {
  return (
    <svg
      width="16"
      height="16"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.8"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
    >
      <path d={path} />
    </svg>
  );
}
