import { useEffect, useRef, useState } from 'react';

export interface ChatHeaderProps {
  title: string;
  modelLabel: string;
  isDemo: boolean;
  canExportActive: boolean;
  onSettings: () => void;
  onExport: (format: 'json' | 'markdown', scope: 'active' | 'all') => void;
}

/** Title, the model in use (labelled when it is the Demo), Settings and Export. */
export function ChatHeader({ title, modelLabel, isDemo, canExportActive, onSettings, onExport }: ChatHeaderProps) {
  const [menuOpen, setMenuOpen] = useState(false);
  const menuRef = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!menuOpen) return;
    const close = (e: MouseEvent) => {
      if (!menuRef.current?.contains(e.target as Node)) setMenuOpen(false);
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, [menuOpen]);

  const choose = (format: 'json' | 'markdown', scope: 'active' | 'all') => {
    setMenuOpen(false);
    onExport(format, scope);
  };

  return (
    <header className="chat-header">
      <h1 className="chat-title">{title}</h1>
      <span className={`model-chip${isDemo ? ' demo' : ''}`} title={isDemo ? 'Answers come from a local demo, not a real model' : 'Model for the next message'}>
        {isDemo ? 'Demo — not a real model' : modelLabel}
      </span>
      <div className="header-actions" ref={menuRef}>
        <button type="button" aria-haspopup="menu" aria-expanded={menuOpen} onClick={() => setMenuOpen((o) => !o)}>
          Export
        </button>
        {menuOpen && (
          <div role="menu" className="menu" onKeyDown={(e) => e.key === 'Escape' && setMenuOpen(false)}>
            {canExportActive && (
              <>
                <button type="button" role="menuitem" onClick={() => choose('json', 'active')}>
                  This conversation (JSON)
                </button>
                <button type="button" role="menuitem" onClick={() => choose('markdown', 'active')}>
                  This conversation (Markdown)
                </button>
              </>
            )}
            <button type="button" role="menuitem" onClick={() => choose('json', 'all')}>
              All conversations (JSON)
            </button>
            <button type="button" role="menuitem" onClick={() => choose('markdown', 'all')}>
              All conversations (Markdown)
            </button>
          </div>
        )}
        <button type="button" onClick={onSettings}>
          Settings
        </button>
      </div>
    </header>
  );
}
