import { forwardRef, useState } from 'react';

export interface ConversationItem {
  id: string;
  title: string;
  updatedAt: number;
  /** A line of matching text when the list is filtered by a search. */
  snippet?: string;
}

export interface ConversationListProps {
  items: ConversationItem[];
  activeId?: string;
  query: string;
  onQueryChange: (query: string) => void;
  onNew: () => void;
  onSelect: (id: string) => void;
  onRename: (id: string, title: string) => void;
  onDelete: (id: string) => void;
  /** Extra controls for the bottom of the sidebar (import, settings…). */
  footer?: React.ReactNode;
}

/** The sidebar: new chat, search, and the conversations with rename and delete. */
export const ConversationList = forwardRef<HTMLInputElement, ConversationListProps>(function ConversationList(
  { items, activeId, query, onQueryChange, onNew, onSelect, onRename, onDelete, footer },
  searchRef,
) {
  const [renaming, setRenaming] = useState<string | null>(null);
  const [title, setTitle] = useState('');

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
        placeholder="Search (Ctrl+K)"
        value={query}
        onChange={(e) => onQueryChange(e.target.value)}
      />
      <ul className="conversation-list">
        {items.length === 0 && <li className="muted empty-list">{query ? 'No conversation matches.' : 'No conversations yet.'}</li>}
        {items.map((item) => (
          <li key={item.id} className={item.id === activeId ? 'active' : undefined}>
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
                  onKeyDown={(e) => e.key === 'Escape' && setRenaming(null)}
                  onBlur={() => setRenaming(null)}
                />
              </form>
            ) : (
              <>
                <button type="button" className="conversation-link" aria-current={item.id === activeId ? 'page' : undefined} onClick={() => onSelect(item.id)}>
                  <span className="conversation-title">{item.title || 'Untitled'}</span>
                  {item.snippet && <span className="conversation-snippet muted">{item.snippet}</span>}
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
        ))}
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
