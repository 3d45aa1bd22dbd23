import { useState } from 'react';

/**
 * Copies text to the clipboard for a Copy button: `copied` is true for 1.5 s after a copy
 * succeeds, so the button can say "Copied"; a refused copy leaves it false.
 */
export function useCopyText(): { copied: boolean; copy: (text: string) => Promise<void> } {
  const [copied, setCopied] = useState(false);
  async function copy(text: string) {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      setCopied(false);
    }
  }
  return { copied, copy };
}
