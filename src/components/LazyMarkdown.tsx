import { lazy } from 'react';
import type MarkdownComponent from './Markdown';

type MarkdownModule = { default: typeof MarkdownComponent };
let loaded: MarkdownModule | undefined;
let loading: Promise<MarkdownModule> | undefined;

/** Loads the Markdown renderer's chunk (once); the app calls it while idle, so the first message opened needs no wait. */
export function loadMarkdown(): Promise<MarkdownModule> {
  loading ??= import('./Markdown').then((module) => (loaded = module));
  return loading;
}

const Suspending = lazy(loadMarkdown);

/**
 * The Markdown renderer, from its own chunk: rendered at once when the chunk is here, else
 * through React.lazy, which suspends (the nearest Suspense boundary shows the plain text)
 * until it loads. React.lazy alone suspends on every first render, even of a loaded chunk.
 */
export function LazyMarkdown({ text }: { text: string }) {
  const Markdown = loaded?.default ?? Suspending;
  return <Markdown text={text} />;
}
