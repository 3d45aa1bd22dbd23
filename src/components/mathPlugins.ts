/**
 * The math renderer, loaded as its own chunk (KaTeX's code, styles and fonts) the first time
 * a message holds a formula; a transcript without math never fetches it.
 */
import 'katex/dist/katex.min.css';
import type { KatexOptions } from 'katex';
import type { Options } from 'react-markdown';
import rehypeKatex from 'rehype-katex';
import remarkMath from 'remark-math';

/**
 * KaTeX limits for text written by a model or pasted by anyone. `trust: false` turns
 * `\href`, `\url`, `\includegraphics` and `\html…` into error text, so a formula can neither
 * link anywhere nor load anything; `maxExpand` stops macro loops (`\def\a{\a\a}\a`) and
 * `maxSize` huge rules and spaces. A formula KaTeX cannot read is shown as its source, in
 * the text colour (styled in styles.css), not as a red error.
 */
export const KATEX_OPTIONS: KatexOptions = {
  output: 'htmlAndMathml',
  trust: false,
  strict: 'ignore',
  maxExpand: 1000,
  maxSize: 20,
  errorColor: 'inherit',
};

interface MdastNode {
  type: string;
  lang?: string | null;
  position?: { start: { offset?: number } };
  data?: { hProperties?: Record<string, unknown> };
  children?: MdastNode[];
}

/**
 * remark-math reads `$$x$$` inside a line as inline math; ChatGPT and Claude show it
 * displayed, so it is marked for display here. A fenced block labelled `math` stays code:
 * code blocks show what was written.
 */
function remarkMathDisplay() {
  return (tree: MdastNode, file: { value: unknown }) => {
    const source = String(file.value);
    const visit = (node: MdastNode) => {
      if (node.type === 'inlineMath' && source.startsWith('$$', node.position?.start.offset ?? -1)) {
        node.data = { ...node.data, hProperties: { className: ['language-math', 'math-display'] } };
      } else if (node.type === 'code' && node.lang === 'math') {
        node.data = { ...node.data, hProperties: { className: ['language-math-source'] } };
      }
      node.children?.forEach(visit);
    };
    visit(tree);
  };
}

type Plugins = NonNullable<Options['remarkPlugins']>;

export const mathRemarkPlugins: Plugins = [[remarkMath, { singleDollarTextMath: true }], remarkMathDisplay];
export const mathRehypePlugins: Plugins = [[rehypeKatex, KATEX_OPTIONS]];
