import { describe, expect, it } from 'vitest';
import { MARKDOWN_LIMITS, formulaCount, hasMath, markdownLimitExceeded, mathSegments, prepareMathMarkdown } from '../../src/core';

const md = (text: string) => prepareMathMarkdown(text).markdown;

describe('prepareMathMarkdown: the four delimiters', () => {
  it('rewrites \\(…\\) to $…$ and an inline \\[…\\] to $$…$$, leaving the formula itself alone', () => {
    expect(md('An answer with \\( x \\) and \\[ E[|x-y|] = \\int_0^1 \\int_0^1 |x-y| \\, dx \\, dy \\]')).toBe(
      'An answer with $ x $ and $$ E[|x-y|] = \\int_0^1 \\int_0^1 |x-y| \\, dx \\, dy $$',
    );
    expect(md('where \\(a_1 + a_2\\) holds')).toBe('where $a_1 + a_2$ holds');
  });

  it('keeps $…$ and $$…$$ as they are', () => {
    expect(md('Let $x^2 + y^2 = r^2$ hold, and $$\\sum_i i$$ too.')).toBe('Let $x^2 + y^2 = r^2$ hold, and $$\\sum_i i$$ too.');
    expect(md('$$\n\\int_0^1 x\\,dx\n$$')).toBe('$$\n\\int_0^1 x\\,dx\n$$');
  });

  it('turns a display formula that opens its line into a $$ block, in lists and quotes too', () => {
    expect(md('\\[\nE = mc^2\n\\]\nwhere m is the mass')).toBe('$$\nE = mc^2\n$$\nwhere m is the mass');
    expect(md('\\[ E = mc^2 \\]')).toBe('$$\nE = mc^2\n$$');
    expect(md('$$x = 1$$')).toBe('$$\nx = 1\n$$');
    expect(md('1. First\n   \\[ a = b \\]\n2. Second')).toBe('1. First\n   $$\n   a = b\n   $$\n2. Second');
    expect(md('> quote\n> \\[\n> x\n> \\]')).toBe('> quote\n> $$\n> x\n> $$');
    // Text after the closing delimiter goes on a line of its own, after the block.
    expect(md('\\[ a \\] so a holds')).toBe('$$\na\n$$\n so a holds');
  });

  it('says whether there is math, and leaves text without any exactly as it was', () => {
    expect(prepareMathMarkdown('Nothing here')).toEqual({ markdown: 'Nothing here', hasMath: false });
    expect(prepareMathMarkdown('It costs $5 and $10.')).toEqual({ markdown: 'It costs $5 and $10.', hasMath: false });
    expect(hasMath('$x$')).toBe(true);
    expect(hasMath('\\(x\\)')).toBe(true);
  });
});

describe('prepareMathMarkdown: dollars that are prices stay text', () => {
  const prices = [
    'It costs $5 and $10.',
    'costs $3.50, or $4',
    'Plans: $5/month, $50/year and $500 for life.',
    'Somewhere between $20-$30 a night.',
    'Price $20/$30 each',
    'Save $$$ with this one weird trick',
    'I paid $1,200 for it (down from $1,500).',
    'A $5 bill',
    'Revenue grew from $1.2M to $3.4M; costs from $0.8M to $1M.',
    'It is $ 5 or 5 $ depending on the shop.',
    'The variable $HOME and $PATH in a shell',
    'Split the $100 between us: $50 each',
  ];
  it.each(prices)('%s', (text) => {
    expect(hasMath(text)).toBe(false);
    expect(mathSegments(text)).toEqual([{ kind: 'text', text }]);
  });

  it('escapes prices next to a formula so the parser reads them as text', () => {
    expect(md('It costs $5, and $x^2$ is a square; $10 more.')).toBe('It costs \\$5, and $x^2$ is a square; \\$10 more.');
    expect(md('Save $$$ on $\\pi$')).toBe('Save \\$\\$\\$ on $\\pi$');
  });

  it('leaves an escaped dollar alone', () => {
    expect(md('escaped \\$5 and $x$')).toBe('escaped \\$5 and $x$');
  });
});

describe('prepareMathMarkdown: code is never touched', () => {
  it('leaves code spans, however many backticks', () => {
    expect(hasMath('Run `echo $HOME$` or ``$x$`` here')).toBe(false);
    expect(md('Run `\\(x\\)` but $y$')).toBe('Run `\\(x\\)` but $y$');
  });

  it('leaves fenced code blocks, with backticks or tildes, in lists and quotes', () => {
    const fenced = '```sh\necho $HOME and $PATH\nprintf "\\(x\\)"\n```\n~~~\n$x$\n~~~\n- item\n  ```\n  $y$\n  ```';
    expect(prepareMathMarkdown(fenced)).toEqual({ markdown: fenced, hasMath: false });
    expect(md('```\n$x$\n```\nthen $y$')).toBe('```\n$x$\n```\nthen $y$');
  });

  it('leaves indented code blocks, but not indented lines inside a list', () => {
    const indented = 'Run this:\n\n    echo $HOME costs $5\n    printf "\\(x\\)"\n\nthen $y$';
    expect(md(indented)).toBe(indented);
    expect(md('- item\n\n    with \\(x\\) in it')).toBe('- item\n\n    with $x$ in it');
  });

  it('does not read an escaped bracket as a display formula', () => {
    expect(hasMath('see \\[1\\] and \\[note\\] and \\[a, b\\]')).toBe(false);
    expect(hasMath('\\[x^2\\]')).toBe(true);
  });
});

describe('prepareMathMarkdown while an answer streams in', () => {
  it('shows an unclosed $$ block as the formula written so far, and leaves other unclosed delimiters as text', () => {
    expect(md('Here:\n$$\n\\frac{a}{')).toBe('Here:\n$$\n\\frac{a}{\n$$');
    expect(hasMath('Here: \\( x + ')).toBe(false);
    expect(hasMath('Here: $x + ')).toBe(false);
    expect(md('Here: $x + $y$')).toBe('Here: \\$x + $y$');
  });

  it('never throws on any prefix of an answer with math', () => {
    const answer = 'Let \\(f(x) = x^2\\). Then\n\n\\[\n\\int_0^1 f(x)\\,dx = \\frac{1}{3}\n\\]\n\nand $$\\sum_{n=1}^\\infty \\frac{1}{n^2}$$ costs $5, `$x$`.';
    for (let i = 0; i <= answer.length; i++) expect(() => prepareMathMarkdown(answer.slice(0, i))).not.toThrow();
  });
});

describe('mathSegments', () => {
  it('cuts plain text into words and formulas without their delimiters', () => {
    expect(mathSegments('Is \\(x^2\\) more than $5? And $$y$$')).toEqual([
      { kind: 'text', text: 'Is ' },
      { kind: 'math', tex: 'x^2', display: false },
      { kind: 'text', text: ' more than $5? And ' },
      { kind: 'math', tex: 'y', display: true },
    ]);
    expect(mathSegments('')).toEqual([]);
  });
});

describe('prepareMathMarkdown stays linear on hostile text', () => {
  it.each([
    ['unclosed \\(', '\\('.repeat(25_000)],
    ['unclosed $$', 'a $$ '.repeat(10_000)],
    ['dollars', '$a '.repeat(16_000)],
    ['backticks and dollars', '`$'.repeat(25_000)],
  ])('%s', (_name, text) => {
    const start = performance.now();
    prepareMathMarkdown(text);
    expect(performance.now() - start).toBeLessThan(1000);
  });
});

describe('the formula limit', () => {
  it('counts formulas outside code, and shows a message past the limit as plain text', () => {
    expect(formulaCount('$a$ and \\(b\\), `$c$`, $5 and $$d$$')).toBe(3);
    const many = (n: number) => Array.from({ length: n }, (_, i) => `$x_{${i}}$`).join(' ');
    expect(markdownLimitExceeded(many(MARKDOWN_LIMITS.maxFormulas))).toBeUndefined();
    expect(markdownLimitExceeded(many(MARKDOWN_LIMITS.maxFormulas + 1))).toBe('it has more than 200 formulas');
  });
});
