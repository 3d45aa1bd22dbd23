import { useEffect, useRef, useState, type RefObject } from 'react';
import type { ModelChoice } from '../core';
import { formatBytes, type ExportOptions } from '../store';
import { loadSettings } from './LazySettings';

export interface ChatHeaderProps {
  title: string;
  modelLabel: string;
  isDemo: boolean;
  canExportActive: boolean;
  onSettings: () => void;
  /** Options are given only when asked for: images in a JSON export, thinking in a Markdown one. */
  onExport: (format: 'json' | 'markdown', scope: 'active' | 'all', options?: ExportOptions) => void;
  /** Bytes of the images an export with images would carry (this conversation's, everyone's), asked when the menu opens. */
  imageBytes?: () => Promise<{ active: number; all: number } | null>;
  /** The models to switch between (with their windows); without them, or on the Demo, the model is only named. */
  models?: readonly ModelChoice[];
  /** The model the next message goes to. */
  modelId?: string;
  /** Switches the model from the next request on. */
  onModelChange?: (modelId: string) => void;
  /** Given, the header is a phone's one line: these buttons lead, and Export and Settings move into a "More" menu. */
  phone?: PhoneHeader;
  /** On a phone, the button that opens the conversation drawer; the drawer gives focus back to it when it closes. */
  conversationsButtonRef?: RefObject<HTMLButtonElement | null>;
}

/** What the header of a phone adds: the button that opens the conversation drawer, and New chat. */
export interface PhoneHeader {
  onOpenConversations: () => void;
  conversationsOpen: boolean;
  onNewChat: () => void;
}

/** Pointed at or focused, a Settings button loads the dialog's chunk, if the idle page has not yet: it opens with no wait. */
const prefetchSettings = () => void loadSettings().catch(() => undefined); // a failure shows when Settings opens

const windowText = (choice: ModelChoice) => `${choice.contextWindow.toLocaleString('en-US')} tokens${choice.windowSource === 'guess' ? ', a guess' : ''}`;

/** Title, the model in use (labelled when it is the Demo), Settings and Export; on a phone, one line with a "More" menu. */
export function ChatHeader({
  title,
  modelLabel,
  isDemo,
  canExportActive,
  onSettings,
  onExport,
  imageBytes,
  models,
  modelId,
  onModelChange,
  phone,
  conversationsButtonRef,
}: ChatHeaderProps) {
  const [menuOpen, setMenuOpen] = useState(false);
  const menuRef = useRef<HTMLDivElement>(null);

  const toggleRef = useRef<HTMLButtonElement>(null);

  // An open menu takes focus on its first item; Escape closes it from anywhere and returns
  // focus to the toggle; the arrow keys move between items; a click outside closes it.
  useEffect(() => {
    if (!menuOpen) return;
    const items = () => Array.from(menuRef.current?.querySelectorAll<HTMLElement>('[role="menuitem"], [role="menuitemcheckbox"]') ?? []);
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
  // Markdown is a transcript of what was said; the thinking goes in only when ticked (for this visit).
  const [withThinking, setWithThinking] = useState(false);
  const choose = (format: 'json' | 'markdown', scope: 'active' | 'all', withImages = false) => {
    setMenuOpen(false);
    if (withImages) onExport(format, scope, { withImages: true });
    else if (format === 'markdown' && withThinking) onExport(format, scope, { withThinking: true });
    else onExport(format, scope);
  };
  const openMenu = () => {
    setMenuOpen((open) => !open);
    setImages(null);
    void imageBytes?.().then(setImages);
  };

  // The export choices, worded for the Export menu or, on a phone, for the "More" menu where they stand with Settings.
  const exportItems = (say: (what: string) => string) => (
    <>
      {canExportActive && (
        <>
          <button type="button" role="menuitem" onClick={() => choose('json', 'active')}>
            {say('This conversation (JSON)')}
          </button>
          {images && images.active > 0 && (
            <button type="button" role="menuitem" onClick={() => choose('json', 'active', true)}>
              {say(`This conversation with its images and PDFs (JSON, ${formatBytes(images.active)})`)}
            </button>
          )}
          <button type="button" role="menuitem" onClick={() => choose('markdown', 'active')}>
            {say('This conversation (Markdown)')}
          </button>
        </>
      )}
      <button type="button" role="menuitem" onClick={() => choose('json', 'all')}>
        {say('All conversations (JSON)')}
      </button>
      {images && images.all > 0 && (
        <button type="button" role="menuitem" onClick={() => choose('json', 'all', true)}>
          {say(`All conversations with their images and PDFs (JSON, ${formatBytes(images.all)})`)}
        </button>
      )}
      <button type="button" role="menuitem" onClick={() => choose('markdown', 'all')}>
        {say('All conversations (Markdown)')}
      </button>
      <div role="separator" className="menu-separator" />
      {/* A setting of the Markdown items above: ticking it keeps the menu open. */}
      <button type="button" role="menuitemcheckbox" aria-checked={withThinking} className="menu-check" onClick={() => setWithThinking((on) => !on)}>
        Include thinking in Markdown
      </button>
    </>
  );

  const model =
    !isDemo && models && models.length > 0 && modelId && onModelChange ? (
      // A switch takes effect at once: the gauge below shows the next request planned for the new model's window.
      <select className="model-picker" aria-label="Model for the next message" value={modelId} onChange={(e) => onModelChange(e.target.value)}>
        {models.map((choice) => (
          <option key={choice.id} value={choice.id}>
            {choice.label} — {windowText(choice)}
          </option>
        ))}
      </select>
    ) : (
      <span className={`model-chip${isDemo ? ' demo' : ''}`} title={isDemo ? 'Answers come from a local demo, not a real model' : 'Model for the next message'}>
        {/* A phone has room for "Demo" alone; the chip's title says the rest. */}
        {isDemo ? (phone ? 'Demo' : 'Demo — not a real model') : modelLabel}
      </span>
    );

  if (phone) {
    return (
      <header className="chat-header chat-header-phone">
        <button
          ref={conversationsButtonRef}
          type="button"
          className="header-icon"
          aria-label="Conversations"
          aria-haspopup="dialog"
          aria-expanded={phone.conversationsOpen}
          aria-controls="conversation-drawer"
          onClick={phone.onOpenConversations}
        >
          <Icon path="M4 6h16M4 12h16M4 18h16" />
        </button>
        <h1 className="chat-title">{title}</h1>
        {model}
        <button type="button" className="header-icon" aria-label="New chat" title="New chat" onClick={phone.onNewChat}>
          <Icon path="M12 5v14M5 12h14" />
        </button>
        <div className="header-actions" ref={menuRef}>
          <button ref={toggleRef} type="button" className="header-icon" aria-label="More" aria-haspopup="menu" aria-expanded={menuOpen} onClick={openMenu}>
            <Icon path="M5 12h.01M12 12h.01M19 12h.01" wide />
          </button>
          {menuOpen && (
            <div role="menu" aria-label="More" className="menu">
              {exportItems((what) => `Export ${what.charAt(0).toLowerCase()}${what.slice(1)}`)}
              <div role="separator" className="menu-separator" />
              <button
                type="button"
                role="menuitem"
                onFocus={prefetchSettings}
                onPointerEnter={prefetchSettings}
                onClick={() => {
                  setMenuOpen(false);
                  onSettings();
                }}
              >
                Settings
              </button>
            </div>
          )}
        </div>
      </header>
    );
  }

  return (
    <header className="chat-header">
      <h1 className="chat-title">{title}</h1>
      {model}
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
            {exportItems((what) => what)}
          </div>
        )}
        <button type="button" onFocus={prefetchSettings} onPointerEnter={prefetchSettings} onClick={onSettings}>
          Settings
        </button>
      </div>
    </header>
  );
}

function Icon({ path, wide = false }: { path: string; wide?: boolean }) {
  return (
    <svg
      width="20"
      height="20"
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={wide ? 3 : 2}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
    >
      <path d={path} />
    </svg>
  );
}
