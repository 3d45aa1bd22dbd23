import { memo, useRef, useState, type ComponentProps } from 'react';
import ReactMarkdown, { defaultUrlTransform } from 'react-markdown';
import rehypeHighlight from 'rehype-highlight';
import remarkGfm from 'remark-gfm';
import { markdownLimitExceeded } from '../core';

/**
 * Markdown rendered safely: raw HTML is never interpreted (react-markdown without
 * rehype-raw prints it as text), and URLs go through react-markdown's allow-list of
 * protocols, so `javascript:` and `data:` links become inert. Text past the core's
 * MARKDOWN_LIMITS (deep nesting, delimiter storms, very long) is shown as plain text,
 * since parsing it could take seconds or overflow the stack.
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
  return (
    <div className="markdown">
      <ReactMarkdown
        remarkPlugins={[remarkGfm]}
        rehypePlugins={[[rehypeHighlight, { detect: false, ignoreMissing: true }]]}
        urlTransform={safeUrl}
        components={{ pre: CodeBlock, a: ExternalLink, img: InertImage }}
      >
        {text}
      </ReactMarkdown>
    </div>
  );
});

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
  const [copied, setCopied] = useState(false);
  async function copy() {
    const text = ref.current?.textContent ?? '';
    try {
      await navigator.clipboard.writeText(text);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      setCopied(false);
    }
  }
  return (
    <div className="code-block">
      <button type="button" className="copy-code" onClick={copy} aria-label="Copy code">
        {copied ? 'Copied' : 'Copy'}
      </button>
      <pre ref={ref} {...rest}>
        {children}
      </pre>
    </div>
  );
}
