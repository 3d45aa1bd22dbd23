import { act, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Suspense } from 'react';
import { describe, expect, it } from 'vitest';
import Markdown from '../../src/components/Markdown';
import { MessageView } from '../../src/components/MessageView';
import { SummaryMessage } from '../../src/components/SummaryMessage';
import type { StoredMessage } from '../../src/core';

/** Renders and waits until the math chunk, when the text needs it, has loaded. */
async function renderMarkdown(text: string): Promise<HTMLElement> {
  let container!: HTMLElement;
  await act(async () => {
    container = render(
      <Suspense fallback={<p>loading</p>}>
        <Markdown text={text} />
      </Suspense>,
    ).container;
  });
  await waitFor(() => expect(container.querySelector('.markdown')).not.toBeNull());
  return container;
}

const formulas = (root: HTMLElement) => [...root.querySelectorAll('.katex')];
/** The TeX KaTeX rendered, from the MathML annotation it keeps for screen readers and copying. */
const tex = (formula: Element) => formula.querySelector('annotation[encoding="application/x-tex"]')?.textContent;
const isDisplay = (formula: Element) => formula.parentElement?.classList.contains('katex-display') ?? false;

function message(role: 'user' | 'assistant', text: string, extra: Partial<StoredMessage> = {}): StoredMessage {
  return {
    id: `${role}-1`,
    conversationId: 'c1',
    seq: 1,
    role,
    kind: 'message',
    content: [{ type: 'text', text }],
    createdAt: 0,
    status: 'complete',
    ...extra,
  };
}

describe('Markdown renders math with KaTeX', () => {
  it.each([
    ['$…$', 'Let $x^2 + 1$ be odd.', 'x^2 + 1', false],
    ['\\(…\\)', 'Let \\( x^2 + 1 \\) be odd.', 'x^2 + 1', false],
    ['$$…$$ on its own lines', 'Then\n\n$$\n\\int_0^1 x\\,dx\n$$\n\nholds.', '\\int_0^1 x\\,dx', true],
    ['$$…$$ inside a line', 'Then $$\\int_0^1 x\\,dx$$ holds.', '\\int_0^1 x\\,dx', true],
    ['\\[…\\] on its own lines', 'Then\n\\[\nE[|x-y|] = \\int_0^1 |x-y| \\, dx\n\\]\nholds.', 'E[|x-y|] = \\int_0^1 |x-y| \\, dx', true],
    ['\\[…\\] inside a line', 'Then \\[ E = mc^2 \\] holds.', 'E = mc^2', true],
  ])('%s', async (_name, text, source, display) => {
    const root = await renderMarkdown(text);
    const [formula, ...others] = formulas(root);
    expect(others).toEqual([]);
    expect(tex(formula!)?.trim()).toBe(source);
    expect(isDisplay(formula!)).toBe(display);
    // MathML stays for screen readers; the drawn copy is hidden from them.
    expect(formula!.querySelector('math')).not.toBeNull();
    expect(formula!.querySelector('.katex-html')).toHaveAttribute('aria-hidden', 'true');
    expect(root.textContent).not.toMatch(/\\\(|\\\[|\$/);
  });

  it('renders the garbled example from ChatGPT: both formulas, no stray brackets or backslashes', async () => {
    const root = await renderMarkdown('An answer with \\( x \\) and \\[ E[|x-y|] = \\int_0^1 \\int_0^1 |x-y| \\, dx \\, dy \\]');
    expect(
      formulas(root)
        .map(tex)
        .map((t) => t?.trim()),
    ).toEqual(['x', 'E[|x-y|] = \\int_0^1 \\int_0^1 |x-y| \\, dx \\, dy']);
    expect(root.querySelector('p')!.firstChild!.textContent).toBe('An answer with ');
  });

  it('renders display math inside list items and quotes', async () => {
    const root = await renderMarkdown('1. First\n   \\[ a = b \\]\n2. Second\n\n> \\[\n> c = d\n> \\]');
    expect(
      formulas(root)
        .map(tex)
        .map((t) => t?.trim()),
    ).toEqual(['a = b', 'c = d']);
    expect(root.querySelectorAll('li')).toHaveLength(2);
    expect(root.querySelector('li .katex-display')).not.toBeNull();
    expect(root.querySelector('blockquote .katex-display')).not.toBeNull();
  });

  it.each(['It costs $5 and $10.', 'costs $3.50, or $4', 'Between $20-$30, or $1,200 in total ($100/month).'])('keeps prices as text: %s', async (text) => {
    const root = await renderMarkdown(text);
    expect(formulas(root)).toEqual([]);
    expect(root.textContent).toBe(text);
  });

  it('keeps prices as text next to a formula', async () => {
    const root = await renderMarkdown('It costs $5, and $x^2$ is a square; $10 more.');
    expect(formulas(root).map(tex)).toEqual(['x^2']);
    expect(root.querySelector('p')!.firstChild!.textContent).toBe('It costs $5, and ');
    expect(root.textContent).toMatch(/is a square; \$10 more\.$/);
  });

  it('never touches code spans or code blocks, even beside a formula', async () => {
    const root = await renderMarkdown('Use `$x$` and `\\(y\\)`, then $z$.\n\n```tex\n\\[ a \\] and $b$\n```\n\n```math\nc^2\n```');
    expect(formulas(root).map(tex)).toEqual(['z']);
    const code = [...root.querySelectorAll('code')].map((c) => c.textContent);
    expect(code).toEqual(['$x$', '\\(y\\)', '\\[ a \\] and $b$\n', 'c^2\n']);
  });

  it('shows a formula KaTeX cannot read as its source, and the rest of the message', async () => {
    const root = await renderMarkdown('Good $a^2$, bad $\\frac{1}{$ and \\(\\notacommand{x}\\), then more text.');
    expect(formulas(root).map(tex)).toEqual(['a^2']);
    const errors = [...root.querySelectorAll('.katex-error')];
    expect(errors.map((e) => e.textContent)).toEqual(['\\frac{1}{', '\\notacommand{x}']);
    // KaTeX's reason is there on hover; the look (the text colour, like code) comes from styles.css.
    expect(errors[1]).toHaveAttribute('title', expect.stringContaining('Undefined control sequence'));
    expect(errors.every((e) => !(e as HTMLElement).getAttribute('style'))).toBe(true);
    expect(root).toHaveTextContent('then more text.');
  });

  it('gives hostile TeX no link, no image and no hang', async () => {
    const start = performance.now();
    const root = await renderMarkdown(
      [
        '$\\href{javascript:alert(1)}{click}$',
        '$\\url{https://tracker.example.com}$',
        '$\\includegraphics{https://tracker.example.com/p.png}$',
        '$\\htmlStyle{color:red}{x}$',
        '$\\def\\a{\\a\\a}\\a$',
        '$\\def\\b#1{#1#1}\\b{\\b{\\b{\\b{\\b{\\b{\\b{\\b{\\b{\\b{\\b{x}}}}}}}}}}}$',
        '$\\rule{100000em}{100000em}$',
      ].join('\n\n'),
    );
    expect(performance.now() - start).toBeLessThan(10_000);
    expect(root.querySelector('a, img, [href], [src]')).toBeNull();
    expect(root.querySelectorAll('p')).toHaveLength(7);
    const rule = root.querySelector('.rule') as HTMLElement | null;
    if (rule) expect(parseFloat(rule.style.borderRightWidth || '0')).toBeLessThanOrEqual(20);
  });
});

describe('math in messages', () => {
  it('renders math in an answer as it streams, from a partial $$ block to the finished formula', async () => {
    const answer = message('assistant', '', { status: 'streaming', content: [] });
    const full = 'The area is\n\n$$\n\\int_0^1 x^2\\,dx = \\frac{1}{3}\n$$\n\nso $A = 1/3$.';
    let view!: ReturnType<typeof render>;
    await act(async () => {
      view = render(<MessageView message={answer} streamingText="The area is" />);
    });
    for (let i = 12; i <= full.length; i += 3) {
      await act(async () => view.rerender(<MessageView message={answer} streamingText={full.slice(0, i)} />));
      const article = screen.getByRole('article', { name: 'Assistant message' });
      expect(article).toHaveTextContent('The area is');
    }
    await act(async () => view.rerender(<MessageView message={{ ...answer, status: 'complete', content: [{ type: 'text', text: full }] }} />));
    const article = screen.getByRole('article', { name: 'Assistant message' });
    await waitFor(() => expect(formulas(article).map(tex)).toEqual(['\\int_0^1 x^2\\,dx = \\frac{1}{3}', 'A = 1/3']));
  });

  it('renders math in a user message, the rest shown as typed', async () => {
    await act(async () => {
      render(<MessageView message={message('user', 'Is \\(x^2\\) *really* more than $5?\nAnd $$\\sqrt{2}$$')} />);
    });
    const article = screen.getByRole('article', { name: 'User message' });
    await waitFor(() => expect(formulas(article).map(tex)).toEqual(['x^2', '\\sqrt{2}']));
    expect(article.querySelector('em')).toBeNull();
    expect(article.querySelector('.plain')!.textContent).toMatch(/^Is .* \*really\* more than \$5\?\nAnd /);
  });

  it('copies the source TeX, not the rendered formula', async () => {
    const text = 'The mean is \\( \\bar{x} = \\frac{1}{n}\\sum x_i \\).';
    const events = userEvent.setup();
    await act(async () => {
      render(<MessageView message={message('assistant', text)} />);
    });
    const article = screen.getByRole('article', { name: 'Assistant message' });
    await waitFor(() => expect(formulas(article)).toHaveLength(1));
    await events.click(within(article).getByRole('button', { name: 'Copy' }));
    await expect(navigator.clipboard.readText()).resolves.toBe(text);
  });

  it('renders math in a summary', async () => {
    const summary = message('assistant', '[Conversation Summary]\nWe derived $E = mc^2$.', { kind: 'summary', covers: ['m1'] });
    await act(async () => {
      render(<SummaryMessage message={summary} />);
    });
    const article = screen.getByRole('article', { name: 'Conversation summary' });
    await waitFor(() => expect(formulas(article).map(tex)).toEqual(['E = mc^2']));
  });
});
