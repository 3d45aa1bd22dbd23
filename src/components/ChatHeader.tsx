import { useEffect, useRef, useState } from 'react';
import type { ModelChoice } from '../core';
import { formatBytes } from '../store';

export interface ChatHeaderProps {
  title: string;
  modelLabel: string;
  isDemo: boolean;
  canExportActive: boolean;
  onSettings: () => void;
  onExport: (format: 'json' | 'markdown', scope: 'active' | 'all', withImages?: boolean) => void;
  /** Bytes of the images an export with images would carry (this conversation's, everyone's), asked when the menu opens. */
  imageBytes?: () => Promise<{ active: number; all: number } | null>;
  /** The models to switch between (with their windows); without them, or on the Demo, the model is only named. */
  models?: readonly ModelChoice[];
  /** The model the next message goes to. */
  modelId?: string;
  /** Switches the model from the next request on. */
  onModelChange?: (modelId: string) => void;
}

const windowText = (choice: ModelChoice) => `${choice.contextWindow.toLocaleString('en-US')} tokens${choice.windowSource === 'guess' ? ', a guess' : ''}`;

/** Title, the model in use (labelled when it is the Demo), Settings and Export. */
export function ChatHeader({ title, modelLabel, isDemo, canExportActive, onSettings, onExport, imageBytes, models, modelId, onModelChange }: ChatHeaderProps) {
  const [menuOpen, setMenuOpen] = useState(false);
  const menuRef = useRef<HTMLDivElement>(null);

  const toggleRef = useRef<HTMLButtonElement>(null);

  // An open menu takes focus on its first item; Escape closes it from anywhere and returns
  // focus to the toggle; the arrow keys move between items; a click outside closes it.
  useEffect(() => {
    if (!menuOpen) return;
    const items = () => Array.from(menuRef.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? []);
    items()[0]?.focus();
    const onMouseDown = (e: MouseEvent) => {
      if (!menuRef.current?.contains(e.target as Node)) setMenuOpen(false);
    };
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.key === 'Escape') {
        e.preventDefault();
        setMenuOpen(false);
        toggleRef.current?.focus();
      } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
        const list = items();
        const at = list.indexOf(document.activeElement as HTMLElement);
        if (at < 0) return;
        e.preventDefault();
        list[(at + (e.key === 'ArrowDown' ? 1 : list.length - 1)) % list.length]?.focus();
      }
    };
    document.addEventListener('mousedown', onMouseDown);
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('mousedown', onMouseDown);
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [menuOpen]);

  const [images, setImages] = useState<{ active: number; all: number } | null>(null);
  const choose = (format: 'json' | 'markdown', scope: 'active' | 'all', withImages = false) => {
    setMenuOpen(false);
    if (withImages) onExport(format, scope, true);
    else onExport(format, scope);
  };
  const openMenu = () => {
    setMenuOpen((open) => !open);
    setImages(null);
    void imageBytes?.().then(setImages);
  };

  return (
    <header className="chat-header">
      <h1 className="chat-title">{title}</h1>
      {!isDemo && models && models.length > 0 && modelId && onModelChange ? (
        // A switch takes effect at once: the gauge below shows the next request planned for the new model's window.
        <select className="model-picker" aria-label="Model for the next message" value={modelId} onChange={(e) => onModelChange(e.target.value)}>
          {models.map((choice) => (
            <option key={choice.id} value={choice.id}>
              {choice.label} — {windowText(choice)}
            </option>
          ))}
        </select>
      ) : (
        <span
          className={`model-chip${isDemo ? ' demo' : ''}`}
          title={isDemo ? 'Answers come from a local demo, not a real model' : 'Model for the next message'}
        >
          {isDemo ? 'Demo — not a real model' : modelLabel}
        </span>
      )}
      <div className="header-actions" ref={menuRef}>
        {/* One click exports what a user most often wants: this conversation (or, with none open, all of them) as
            re-importable JSON. The other formats and scopes are one step further, in the menu beside it. */}
        <div className="split-button">
          <button
            type="button"
            onClick={() => choose('json', canExportActive ? 'active' : 'all')}
            title={canExportActive ? 'Download this conversation as Windowpane JSON' : 'Download all conversations as Windowpane JSON'}
          >
            Export
          </button>
          <button
            ref={toggleRef}
            type="button"
            className="split-toggle"
            aria-label="Other formats"
            aria-haspopup="menu"
            aria-expanded={menuOpen}
            onClick={openMenu}
          >
            ▾
          </button>
        </div>
        {menuOpen && (
          <div role="menu" aria-label="Export" className="menu">
            {canExportActive && (
              <>
                <button type="button" role="menuitem" onClick={() => choose('json', 'active')}>
                  This conversation (JSON)
                </button>
                {images && images.active > 0 && (
                  <button type="button" role="menuitem" onClick={() => choose('json', 'active', true)}>
                    This conversation with its images and PDFs (JSON, {formatBytes(images.active)})
                  </button>
                )}
                <button type="button" role="menuitem" onClick={() => choose('markdown', 'active')}>
                  This conversation (Markdown)
                </button>
              </>
            )}
            <button type="button" role="menuitem" onClick={() => choose('json', 'all')}>
              All conversations (JSON)
            </button>
            {images && images.all > 0 && (
              <button type="button" role="menuitem" onClick={() => choose('json', 'all', true)}>
                All conversations with their images and PDFs (JSON, {formatBytes(images.all)})
              </button>
            )}
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
