import type { StoredMessage } from '../core';

/** One row of the transcript as the UI shows it. */
export type TranscriptRow =
  | { kind: 'message'; key: string; message: StoredMessage; notSent: boolean; tokens?: number }
  | { kind: 'summary'; key: string; message: StoredMessage }
  | { kind: 'trim'; key: string; evicted: number; summarized: boolean; reason?: string };
