import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import Markdown from '../../src/components/Markdown';
import { MessageView } from '../../src/components/MessageView';
import type { StoredMessage } from '../../src/core';

/** Payloads a model (or a pasted export) could carry; each must render as inert text or markup. */
const XSS_CORPUS: Record<string, string> = {
  'raw script': '<script>window.__pwned = 1</script>',
  'script split over lines': 'Look:\n\n<script>\nwindow.__pwned = 1\n</script>\n\ndone',
  'img onerror': '<img src=x onerror="window.__pwned=1">',
  'img onerror unquoted': '<IMG SRC=/ onerror=alert(1)>',
  'svg onload': '<svg onload=alert(1)><circle r="4"/></svg>',
  'svg with script': '<svg><script>alert(1)</script></svg>',
  iframe: '<iframe src="javascript:alert(1)"></iframe>',
  'iframe srcdoc': '<iframe srcdoc="<script>alert(1)</script>"></iframe>',
  'object and embed': '<object data="javascript:alert(1)"></object><embed src="data:text/html,<script>alert(1)</script>">',
  'anchor tag with javascript': '<a href="javascript:alert(1)">click</a>',
  'details ontoggle': '<details open ontoggle=alert(1)>x</details>',
  'body onload': '<body onload=alert(1)>',
  'style tag': '<style>body{background:url("javascript:alert(1)")}</style>',
  'form action': '<form action="javascript:alert(1)"><button>go</button></form>',
  'meta refresh': '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  'markdown javascript link': '[click me](javascript:alert(1))',
  'markdown JavaScript link, mixed case': '[click me](JaVaScRiPt:alert(1))',
  'markdown link with entity-encoded scheme': '[click me](java&#115;cript:alert(1))',
  'markdown link with &colon;': '[click me](javascript&colon;alert(1))',
  'markdown link with tab in scheme': '[click me](<java\tscript:alert(1)>)',
  'markdown link with leading spaces': '[click me](<  javascript:alert(1)>)',
  'markdown data link': '[click me](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
  'markdown vbscript link': '[click me](vbscript:msgbox(1))',
  'autolink javascript': '<javascript:alert(1)>',
  'reference link javascript': '[click me][x]\n\n[x]: javascript:alert(1)',
  'markdown image javascript': '![alt](javascript:alert(1))',
  'markdown image data svg': '![alt](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
  'markdown image with onerror in title': '![x](https://example.com/a.png "onerror=alert(1)")',
  'link title breaking out': '[x](https://example.com "\\" onmouseover=\\"alert(1)")',
  'image inside link': '[![a](x)](javascript:alert(1))',
  'html entities of a script tag': '&lt;script&gt;alert(1)&lt;/script&gt;',
  'numeric entities of a script tag': '&#60;script&#62;alert(1)&#60;/script&#62;',
  'html comment hiding a tag': '<!-- --><script>alert(1)</script><!-- -->',
  'code fence with html': '```html\n<script>alert(1)</script>\n```',
  'inline code with html': '`<img src=x onerror=alert(1)>`',
  'table cell with html': '| a |\n|---|\n| <img src=x onerror=alert(1)> |',
  'gfm autolink literal': 'www.example.com/<script>alert(1)</script>',
};

const DANGEROUS_SCHEME = /^(javascript|vbscript|data):/;

/** Why the rendered output is not inert, or [] when it is. */
function hazards(root: HTMLElement): string[] {
  const found: string[] = [];
  for (const tag of ['script', 'iframe', 'object', 'embed', 'style', 'form', 'meta', 'base', 'link', 'svg', 'img']) {
    if (root.querySelector(tag)) found.push(`<${tag}> element`);
  }
  for (const el of Array.from(root.querySelectorAll('*'))) {
    for (const attr of Array.from(el.attributes)) {
      // Browsers ignore whitespace and control characters inside a URL's scheme.
      const value = Array.from(attr.value)
        .filter((c) => c.charCodeAt(0) > 0x20)
        .join('')
        .toLowerCase();
      if (attr.name.toLowerCase().startsWith('on')) found.push(`${attr.name} on <${el.tagName.toLowerCase()}>`);
      if (['href', 'src', 'action', 'formaction', 'xlink:href', 'srcdoc', 'data'].includes(attr.name.toLowerCase()) && DANGEROUS_SCHEME.test(value)) {
        found.push(`${attr.name}="${attr.value}" on <${el.tagName.toLowerCase()}>`);
      }
      if (attr.name === 'style') found.push(`style attribute on <${el.tagName.toLowerCase()}>`);
    }
  }
  return found;
}

describe('Markdown renders a corpus of XSS payloads inert', () => {
  it.each(Object.entries(XSS_CORPUS))('%s', (_name, payload) => {
    const { container } = render(<Markdown text={payload} />);
    expect(hazards(container)).toEqual([]);
  });

  it('the corpus check itself catches a live payload', () => {
    // Guards the guard: if `hazards` stopped seeing these, every case above would pass vacuously.
    const live = document.createElement('div');
    live.innerHTML = '<a href=" java\tscript:alert(1)">x</a><img src="x" onerror="alert(1)"><iframe></iframe>';
    expect(hazards(live)).toEqual(['<iframe> element', '<img> element', 'href=" java\tscript:alert(1)" on <a>', 'onerror on <img>']);
  });

  it('prints raw HTML as text instead of interpreting it', () => {
    const { container } = render(<Markdown text={'before <b onclick="x()">bold</b> after'} />);
    expect(container.querySelector('b')).toBeNull();
    expect(container).toHaveTextContent('before <b onclick="x()">bold</b> after');
  });

  it('keeps a dangerous link’s text but not its target', () => {
    render(<Markdown text="[click me](javascript:alert(1))" />);
    expect(screen.queryByRole('link')).not.toBeInTheDocument();
    expect(screen.getByText('click me')).toBeInTheDocument();
  });

  it('keeps safe links, opened in a new tab without access to this one', () => {
    render(<Markdown text="See [the docs](https://docs.example.com/a?b=1)." />);
    const link = screen.getByRole('link', { name: 'the docs' });
    expect(link).toHaveAttribute('href', 'https://docs.example.com/a?b=1');
    expect(link).toHaveAttribute('target', '_blank');
    expect(link.getAttribute('rel')?.split(' ')).toEqual(expect.arrayContaining(['noopener', 'noreferrer']));
  });

  it('does not load images from anywhere (no tracking pixels), showing their alt text', () => {
    const { container } = render(<Markdown text="![a chart](https://tracker.example.com/p.gif)" />);
    expect(container.querySelector('img')).toBeNull();
    expect(container).toHaveTextContent('[image: a chart]');
  });

  it('renders the whole corpus inert inside an assistant message too', async () => {
    const text = Object.values(XSS_CORPUS).join('\n\n');
    const answer: StoredMessage = { id: 'a1', conversationId: 'c', seq: 1, role: 'assistant', kind: 'message', content: [{ type: 'text', text }], createdAt: 0, status: 'complete' };
    render(<MessageView message={answer} />);
    const article = screen.getByRole('article', { name: 'Assistant message' });
    // The lazily loaded renderer has replaced the plain-text fallback once code blocks have copy buttons.
    await within(article).findAllByRole('button', { name: 'Copy code' });
    expect(hazards(article)).toEqual([]);
  });
});
