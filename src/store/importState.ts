import type { ImportProgress } from '../persistence';

/** An import in progress, for its progress bar. */
export interface ImportState {
  fileName: string;
  /** Which of the files chosen or dropped this is, from 1, of `fileCount`. */
  fileIndex: number;
  fileCount: number;
  /** Null until the import reports where it is. */
  progress: ImportProgress | null;
  /** Cancel was pressed: the batch being written is finishing. */
  cancelling: boolean;
}
