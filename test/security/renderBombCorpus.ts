// Hostile Markdown: messages built to make a Markdown parser recurse, backtrack or churn.
// Used by the render-bomb tests (test/security/renderBombs.test.tsx) and by the Chromium
// benchmark of their render time (test/bench/markdown.bench.ts).

export const KB100 = 100_000;
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
  'a table 1,000 columns wide and 12 rows deep': Array.from({ length: 12 }, (_, i) => (i === 1 ? '|-'.repeat(1000) : '|x'.repeat(1000)) + '|').join('\n'),
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
  'a formula storm (8 KB, 2,000 formulas)': '$x$ '.repeat(2000),
  'a display formula storm': fill('\\[ x^2 \\]\n'),
};
