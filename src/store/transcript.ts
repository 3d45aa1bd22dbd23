import type { StoredMessage, ToolResultBlock } from '../core';

/** A tool call's result as the transcript shows it, under the call it answers. */
export interface ToolResultView {
  block: ToolResultBlock;
  /** The plan sends a short placeholder instead of this result's content. */
  cleared: boolean;
  /** The result is cleared on the provider's side: the request sends it whole and the provider clears it. */
  byProvider?: true;
  /** File ids of the result's images the next request leaves out (sent as a one-line note). */
  imagesNotSent?: readonly string[];
}

/** One row of the transcript as the UI shows it. */
export type TranscriptRow =
  | {
      kind: 'message';
      key: string;
      message: StoredMessage;
      notSent: boolean;
      tokens?: number;
      /** Results of this message's tool calls, by tool_use id. */
      toolResults?: Readonly<Record<string, ToolResultView>>;
      /** Where this message stands among its versions (edits, regenerations), when it has others. */
      versions?: { index: number; count: number };
      /** File ids of its images the next request leaves out (sent as a one-line note). */
      imagesNotSent?: string[];
    }
  | { kind: 'summary'; key: string; message: StoredMessage }
  | {
      kind: 'trim';
      key: string;
      evicted: number;
      summarized: boolean;
      reason?: string;
      strategy?: string;
      /** The provider compacted these messages: its summary, in the next answer, stands for them. */
      compactedBy?: 'anthropic' | 'openai';
      /** Input tokens the provider said its compaction read, where it said. */
      compactedTokens?: number;
    };
