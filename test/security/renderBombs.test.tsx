// Pathological Markdown renders within bounds: every bomb below either renders as Markdown
// or falls back to plain text with a note, never throws and never hangs the parser, while
// ordinary long answers still render as Markdown. The worst render time in Chromium is
// measured in `npm run bench markdown`.
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import Markdown from '../../src/components/Markdown';
import { MARKDOWN_LIMITS, markdownLimitExceeded } from '../../src/core';
import { KB100, RENDER_BOMBS } from './renderBombCorpus';

describe('markdownLimitExceeded keeps ordinary answers as Markdown', () => {
  const ordinary: Record<string, string> = {
    'a 40 KB answer of headings, lists, code and links':
      '## Heading\n\nSome *text* with `code` and a [link](https://example.com).\n\n- a\n- b\n\n```js\nconst a = 1;\n```\n\n'.repeat(400),
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
