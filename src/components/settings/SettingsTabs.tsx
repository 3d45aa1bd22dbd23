import { useId, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';

export interface SettingsTab {
  /** Stable name of the section (also `data-section` on its panel). */
  id: string;
  label: string;
  /** Rendered only once the section is first shown, then kept: for a section that does work when it is opened (Storage measures). */
  lazy?: boolean;
  content: ReactNode;
}

export interface SettingsTabsProps {
  tabs: readonly SettingsTab[];
  selected: string;
  onSelect: (id: string) => void;
}

/**
 * The Settings dialog's sections as WAI-ARIA tabs: a tab list (arrow keys, Home and End move
 * between the tabs and show each one's section) and one panel per tab, named by its tab.
 * Every panel stays in the page while hidden, so what is typed in one survives a visit to
 * another and a field to fix can be found in any of them.
 */
export function SettingsTabs({ tabs, selected, onSelect }: SettingsTabsProps) {
  const baseId = useId();
  const listRef = useRef<HTMLDivElement>(null);
  const [visited, setVisited] = useState<ReadonlySet<string>>(() => new Set([selected]));
  if (!visited.has(selected)) setVisited(new Set(visited).add(selected));
  const tabId = (id: string) => `${baseId}-tab-${id}`;
  const panelId = (id: string) => `${baseId}-panel-${id}`;

  function onKeyDown(e: KeyboardEvent<HTMLDivElement>) {
    const at = tabs.findIndex((t) => t.id === selected);
    const next =
      e.key === 'ArrowRight'
        ? (at + 1) % tabs.length
        : e.key === 'ArrowLeft'
          ? (at - 1 + tabs.length) % tabs.length
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? tabs.length - 1
              : -1;
    const tab = tabs[next];
    if (!tab) return;
    e.preventDefault();
    onSelect(tab.id);
    listRef.current?.ownerDocument.getElementById(tabId(tab.id))?.focus();
  }

  return (
    <>
      <div ref={listRef} role="tablist" aria-label="Settings sections" className="settings-tabs" onKeyDown={onKeyDown}>
        {tabs.map((tab) => (
          <button
            key={tab.id}
            id={tabId(tab.id)}
            type="button"
            role="tab"
            aria-selected={tab.id === selected}
            aria-controls={panelId(tab.id)}
            // One stop in the Tab order: the section shown; the arrows reach the others.
            tabIndex={tab.id === selected ? 0 : -1}
            onClick={() => onSelect(tab.id)}
          >
            {tab.label}
          </button>
        ))}
      </div>
      <div className="settings-body">
        {tabs.map((tab) => (
          <div key={tab.id} id={panelId(tab.id)} role="tabpanel" aria-labelledby={tabId(tab.id)} data-section={tab.id} hidden={tab.id !== selected}>
            {(!tab.lazy || visited.has(tab.id)) && tab.content}
          </div>
        ))}
      </div>
    </>
  );
}
