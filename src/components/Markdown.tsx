import { memo, use, useRef, type ComponentProps } from 'react';
import ReactMarkdown, { defaultUrlTransform } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';
import { markdownLimitExceeded, prepareMathMarkdown } from '../core';
import type * as MathPluginsModule from './mathPlugins';
import { useCopyText } from './useCopyText';

type MathPlugins = typeof MathPluginsModule;
let mathLoading: Promise<MathPlugins> | undefined;
let mathLoaded: MathPlugins | undefined;

/**
 * The math renderer's chunk: here already, or a promise of it (fetched once, the first time a
 * message holds a formula). Components take the module when it is here and `use` the promise
 * otherwise, so a formula appearing mid-answer after the first one never suspends.
 */
export function mathPlugins(): MathPlugins | Promise<MathPlugins> {
  mathLoading ??= import('./mathPlugins').then((plugins) => (mathLoaded = plugins));
  return mathLoaded ?? mathLoading;
}

/**
 * Markdown rendered safely: raw HTML is never interpreted (react-markdown without
 * rehype-raw prints it as text), and URLs go through react-markdown's allow-list of
 * protocols, so `javascript:` and `data:` links become inert. Text past the core's
 * MARKDOWN_LIMITS (deep nesting, delimiter storms, very long) is shown as plain text,
 * since parsing it could take seconds or overflow the stack. Formulas (`$…$`, `\(…\)`,
 * `$$…$$`, `\[…\]`) are rendered with KaTeX, whose chunk loads only for text that holds one;
 * until it has loaded the nearest Suspense boundary shows the text.
 */
export default memo(function Markdown({ text }: { text: string }) {
  const tooComplex = markdownLimitExceeded(text);
  if (tooComplex) {
    return (
      <div className="markdown markdown-plain">
        <p className="plain">{text}</p>
        <p className="render-note muted">Shown as plain text: {tooComplex}.</p>
      </div>
    );
  }
  const { markdown, hasMath } = prepareMathMarkdown(text);
  const loading = hasMath ? mathPlugins() : undefined;
  const math = loading instanceof Promise ? use(loading) : loading;
  return (
    <div className="markdown">
      <ReactMarkdown
        remarkPlugins={math ? [remarkGfm, ...math.mathRemarkPlugins] : [remarkGfm]}
        rehypePlugins={[...(math?.mathRehypePlugins ?? []), highlightOnce]}
        urlTransform={safeUrl}
        components={{ pre: CodeBlock, a: ExternalLink, img: InertImage }}
      >
        {markdown}
      </ReactMarkdown>
    </div>
  );
});

let highlight: ReturnType<typeof rehypeHighlight> | undefined;

/**
 * rehype-highlight, made once for every message. react-markdown builds its processor on
 * each render and the plugin makes a new highlighter when attached, so every message with
 * a code block registered and compiled its grammars again (about 30 ms each); one
 * highlighter keeps them compiled. Only fenced blocks that name a language are highlighted.
 */
function highlightOnce(): ReturnType<typeof rehypeHighlight> {
  return (highlight ??= rehypeHighlight({ detect: false }));
}

function safeUrl(url: string, key: string): string {
  const safe = defaultUrlTransform(url);
  // Images would be fetched from arbitrary hosts as soon as they render (a tracking pixel
  // in a model's answer); links only load when clicked.
  if (key === 'src') return '';
  return safe;
}

function ExternalLink({ node: _node, href, children, ...rest }: ComponentProps<'a'> & { node?: unknown }) {
  if (!href) return <span>{children}</span>;
  return (
    <a {...rest} href={href} target="_blank" rel="noopener noreferrer nofollow">
      {children}
    </a>
  );
}

function InertImage({ alt }: ComponentProps<'img'> & { node?: unknown }) {
  return <span className="md-image">[image{alt ? `: ${alt}` : ''}]</span>;
}

function CodeBlock({ node: _node, children, ...rest }: ComponentProps<'pre'> & { node?: unknown }) {
  const ref = useRef<HTMLPreElement>(null);
  const { copied, copy } = useCopyText();
  return (
    <div className="code-block">
      <button type="button" className="copy-code" onClick={() => copy(ref.current?.textContent ?? '')} aria-label="Copy code">
        {copied ? 'Copied' : 'Copy'}
      </button>
      <pre ref={ref} {...rest}>
        {children}
      </pre>
    </div>
  );
}
