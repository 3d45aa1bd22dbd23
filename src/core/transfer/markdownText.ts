/** Markdown building blocks shared by the Markdown export and the importers' labelled text. */

/** A fenced code block whose fence is longer than any backtick run inside `text`. */
export function fence(text: string, language: string): string {
  let longest = 0;
  for (const run of text.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  const marks = '`'.repeat(Math.max(3, longest + 1));
  return `${marks}${language}\n${text}\n${marks}`;
}

/** `text` as a blockquote, every line prefixed (blank lines become a bare `>`). */
export function quote(text: string): string {
  return text
    .split('\n')
    .map((line) => (line ? `> ${line}` : '>'))
    .join('\n');
}
