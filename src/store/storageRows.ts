/**
 * What the Settings dialog's Storage section shows of a measurement: the conversations still
 * stored, largest first, under their current titles. Measuring and freeing room
 * (storageView.ts) are loaded on first use.
 */
import type { Conversation } from '../core';
import type { ConversationStorage } from '../persistence';
import type { StorageViewState } from './state';

/** One conversation's row: its sizes as measured, under its current title. */
export interface StorageRow extends ConversationStorage {
  /** Messages and attachments together, in bytes (an estimate). */
  bytes: number;
}

/** What the section shows. */
export interface StorageView extends Omit<StorageViewState, 'report'> {
  /** The history's estimated size: the conversations still stored. Null before the first measurement. */
  totalBytes: number | null;
  /** The largest conversations first, at most `limit` of them. */
  rows: StorageRow[];
  /** Conversations left out of `rows`. */
  more: number;
}

export const EMPTY_STORAGE_VIEW: StorageViewState = { status: 'measuring', report: null, browser: null };

/** Rows the section shows at most; the rest are counted ("and N more"). */
export const STORAGE_ROWS = 50;

/**
 * The section's view of `state`: the measured conversations still in the list (a deleted
 * one leaves, and comes back with Undo), under their current titles, largest first.
 */
export function storageViewOf(state: StorageViewState | null, conversations: readonly Conversation[], limit = STORAGE_ROWS): StorageView {
  const { report, ...rest } = state ?? EMPTY_STORAGE_VIEW;
  const titles = new Map(conversations.map((c) => [c.id, c.title]));
  const all = (report?.conversations ?? [])
    .filter((row) => titles.has(row.id))
    .map((row): StorageRow => ({ ...row, title: titles.get(row.id)!, bytes: row.messageBytes + row.attachmentBytes }))
    .sort((a, b) => b.bytes - a.bytes || b.updatedAt - a.updatedAt);
  return {
    ...rest,
    totalBytes: report ? all.reduce((sum, row) => sum + row.bytes, 0) : null,
    rows: all.slice(0, limit),
    more: Math.max(0, all.length - limit),
  };
}
