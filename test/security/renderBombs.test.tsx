// Pathological Markdown renders within bounds: every bomb below either renders as Markdown
// or falls back to plain text with a note, never throws and never hangs the parser, while
// ordinary long answers still render as Markdown. The worst render time in Chromium is
// measured in `npm run bench markdown`.
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import Markdown from '../../src/components/Markdown';
import { MARKDOWN_LIMITS, markdownLimitExceeded } from '../../src/core';

const KB100 = 100_000;
const fill = (unit: string, chars = KB100) => unit.repeat(Math.ceil(chars / unit.length)).slice(0, chars);

/** Hostile messages about 100 KB each, or the smallest size that already bites. */
export const RENDER_BOMBS: Record<string, string> = {
  '6,000 nested block quotes': `${'>'.repeat(6000)} deep`,
  '100 KB of nested block quotes': fill('>'),
  'block quotes with spaces, 1,000 deep': `${'> '.repeat(1000)}x`,
  'a list nested 1,000 deep by indentation': Array.from({ length: 1000 }, (_, i) => `${' '.repeat(i * 2)}- x`).join('\n'),
  'list markers 5,000 deep on one line': `${'- '.repeat(5000)}x`,
  'ordered list markers 3,000 deep on one line': `${'1. '.repeat(3000)}x`,
  'quotes and lists interleaved 2,000 deep': `${'> - '.repeat(2000)}x`,
  'an emphasis storm of *_': fill('*_'),
  'an emphasis storm of 4,000 *_ pairs (8 KB)': '*_'.repeat(4000),
  'strikethrough storm': fill('~a'),
  'unclosed bold openers': fill('**a '),
  'a bracket storm': fill('['),
  'unclosed link openers': fill('[a]('),
  'nested link brackets': `${'['.repeat(20_000)}x${']'.repeat(20_000)}`,
  'image openers': fill('![a]('),
  'a megabyte single line': fill('a ', 1_000_000),
  'a 100 KB single word': fill('a'),
  'a table of 20,000 rows': `|a|b|\n|-|-|\n${'|x|y|\n'.repeat(20_000)}`,
  'a table of 8,000 rows (48 KB)': `|a|b|\n|-|-|\n${'|x|y|\n'.repeat(8_000)}`,
  'a table 5,000 columns wide': `${'|a'.repeat(5000)}|\n${'|-'.repeat(5000)}|\n${'|x'.repeat(5000)}|`,
  '100 KB of backticks': fill('`'),
  'unclosed code spans': fill('`a '),
  'fence openers without closers': fill('```\n'),
  '100 KB of < characters': fill('<'),
  'HTML-looking nesting': fill('<div>'),
  'entity storm': fill('&amp;'),
  'numeric entity storm': fill('&#x1F600;'),
  'autolink storm': fill('<http://a.b/'),
  'reference definitions': fill('[a]: http://x\n'),
  'setext heading underlines': fill('a\n=\n'),
  '100,000 line breaks': '\n'.repeat(KB100),
  'hard break storm': fill('a  \n'),
  'heading markers': fill('# '),
  'footnote storm': fill('[^a]'),
  'task list storm': fill('- [ ] '),
};

describe('markdownLimitExceeded keeps ordinary answers as Markdown', () => {
  const ordinary: Record<string, string> = {
    'a 40 KB answer of headings, lists, code and links': '## Heading\n\nSome *text* with `code` and a [link](https://example.com).\n\n- a\n- b\n\n```js\nconst a = 1;\n```\n\n'.repeat(400),
    'code full of snake_case and **kwargs in a fence': `\`\`\`python\n${'def f(*args, **kwargs):\n    return my_long_name_here * other_name_\n'.repeat(300)}\`\`\``,
    'prose with snake_case identifiers': 'Call read_attachment with start_line and end_line. '.repeat(500),
    'lists nested ten deep': Array.from({ length: 10 }, (_, i) => `${'  '.repeat(i)}- level ${i}`).join('\n'),
    'a table of 500 rows': `|a|b|\n|-|-|\n${'|x|y|\n'.repeat(500)}`,
    'a fenced block with deep indentation': `\`\`\`\n${Array.from({ length: 200 }, (_, i) => `${' '.repeat(i)}x`).join('\n')}\n\`\`\``,
  };
  it.each(Object.entries(ordinary))('%s', (_name, text) => {
    expect(markdownLimitExceeded(text)).toBeUndefined();
  });
});

describe('a render bomb shows as Markdown or as plain text with a note, and never throws', () => {
  it.each(Object.entries(RENDER_BOMBS))('%s', (_name, text) => {
    const { container } = render(<Markdown text={text} />);
    const reason = markdownLimitExceeded(text);
    if (reason) {
      expect(screen.getByText(`Shown as plain text: ${reason}.`)).toBeInTheDocument();
      expect(container.querySelector('.markdown-plain .plain')?.textContent).toBe(text);
    } else {
      expect(text.length).toBeLessThanOrEqual(MARKDOWN_LIMITS.maxChars);
      expect(container.querySelector('.markdown')).not.toBeNull();
    }
  });

  it('catches each bomb of 100 KB by a limit, so none reaches the parser', () => {
    const parsed = Object.entries(RENDER_BOMBS).filter(([, text]) => text.length >= KB100 && !markdownLimitExceeded(text));
    expect(parsed.map(([name]) => name)).toEqual([]);
  });
});
