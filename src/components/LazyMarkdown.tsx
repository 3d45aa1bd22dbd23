import { lazy, type ComponentType } from 'react';
import type MarkdownComponent from './Markdown';
import type UserTextComponent from './PlainTextWithMath';

/**
 * A component from a chunk of its own that the app loads while idle: rendered at once when the
 * chunk is here, else through React.lazy, which suspends (the nearest Suspense boundary shows
 * the plain text) until it loads. React.lazy alone suspends on every first render, even of a
 * loaded chunk.
 */
function preloadable<P extends object>(load: () => Promise<{ default: ComponentType<P> }>) {
  let loaded: { default: ComponentType<P> } | undefined;
  let loading: Promise<{ default: ComponentType<P> }> | undefined;
  const preload = () => (loading ??= load().then((module) => (loaded = module)));
  const Suspending = lazy(preload);
  function View(props: P) {
    const Component = loaded?.default ?? Suspending;
    return <Component {...props} />;
  }
  return { preload, View };
}

const markdown = preloadable<{ text: string }>(() => import('./Markdown') as Promise<{ default: typeof MarkdownComponent }>);
const userText = preloadable<{ text: string }>(() => import('./PlainTextWithMath') as Promise<{ default: typeof UserTextComponent }>);

/** Loads the Markdown renderer's chunk (once); the app calls it while idle, so the first message opened needs no wait. */
export const loadMarkdown = markdown.preload;

/** The Markdown renderer, from its own chunk (see {@link preloadable}). */
export const LazyMarkdown = markdown.View;

/** Loads the chunk that shows a user's message (once): it finds formulas, so the first screen does not carry that. */
export const loadUserText = userText.preload;

/** A user's message as typed, its formulas rendered, from its own chunk (see {@link preloadable}). */
export const LazyUserText = userText.View;
