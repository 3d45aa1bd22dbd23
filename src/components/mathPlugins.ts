/**
 * The math renderer, loaded as its own chunk (KaTeX's code, styles and fonts) the first time
 * a message holds a formula; a transcript without math never fetches it.
 */
import 'katex/dist/katex.min.css';
import { fromHtmlIsomorphic } from 'hast-util-from-html-isomorphic';
import katex, { type KatexOptions } from 'katex';
import type { Options } from 'react-markdown';
import remarkMath from 'remark-math';

/**
 * KaTeX limits for text written by a model or pasted by anyone. `trust: false` turns
 * `\href`, `\url`, `\includegraphics` and `\html…` into errors, so a formula can neither
 * link anywhere nor load anything; `maxExpand` stops macro loops (`\def\a{\a\a}\a`) and
 * `maxSize` huge rules and spaces. A formula KaTeX cannot read is shown as its source.
 */
export const KATEX_OPTIONS: KatexOptions = {
  output: 'htmlAndMathml',
  trust: false,
  strict: 'ignore',
  maxExpand: 1000,
  maxSize: 20,
  throwOnError: true,
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

interface HastNode {
  type: string;
  tagName?: string;
  value?: string;
  properties?: Record<string, unknown>;
  children?: HastNode[];
}

const classesOf = (node: HastNode): unknown[] => (Array.isArray(node.properties?.className) ? node.properties.className : []);
const textOf = (node: HastNode): string => (node.type === 'text' ? (node.value ?? '') : (node.children ?? []).map(textOf).join(''));
/** The attribute KaTeX's inline styles are renamed to while its HTML is parsed. */
const PARKED_STYLE = 'data-katex-style';

/**
 * A formula as hast. KaTeX's HTML is parsed with its `style` attributes renamed: the page's
 * Content-Security-Policy (style-src 'self') refuses style attributes in parsed HTML, the
 * browser's parser included. They are handed back as `style` properties, which React sets
 * through the CSSOM, which the policy allows.
 */
function formula(tex: string, displayMode: boolean): HastNode[] {
  const key = `${displayMode ? 'D' : 'I'}${tex}`;
  const known = rendered.get(key);
  if (known) return known;
  const nodes = renderFormula(tex, displayMode);
  if (rendered.size >= MAX_RENDERED) rendered.clear();
  rendered.set(key, nodes);
  return nodes;
}

/**
 * Formulas already drawn, by source: an answer is parsed again for every streamed delta and
 * a conversation again when it is reopened, and each formula costs KaTeX a millisecond or
 * two. The trees are only read after this (React builds elements from them), so sharing
 * them is safe.
 */
const rendered = new Map<string, HastNode[]>();
const MAX_RENDERED = 2000;

function renderFormula(tex: string, displayMode: boolean): HastNode[] {
  let html: string;
  try {
    html = katex.renderToString(tex, { ...KATEX_OPTIONS, displayMode });
  } catch (error) {
    // A parse error, or any other (a stack overflow on absurd nesting): the source, as written.
    return [{ type: 'element', tagName: 'span', properties: { className: ['katex-error'], title: String(error) }, children: [{ type: 'text', value: tex }] }];
  }
  const root = fromHtmlIsomorphic(html.replaceAll(' style="', ` ${PARKED_STYLE}="`), { fragment: true }) as HastNode;
  const restore = (node: HastNode) => {
    const parked = node.properties?.dataKatexStyle;
    if (node.properties && parked !== undefined) {
      node.properties.style = parked;
      delete node.properties.dataKatexStyle;
    }
    node.children?.forEach(restore);
  };
  restore(root);
  return root.children ?? [];
}

/**
 * Renders remark-math's output (`code.math-inline`, and `code.math-display`, inside a
 * `pre` for a block) with KaTeX, replacing the code element, or the `pre` around it.
 */
function rehypeKatexFormulas() {
  const visit = (parent: HastNode) => {
    const children = parent.children ?? [];
    for (let i = 0; i < children.length; i++) {
      const child = children[i]!;
      if (child.type !== 'element') continue;
      const code = child.tagName === 'pre' && child.children?.length === 1 ? child.children[0]! : child;
      const classes = code.tagName === 'code' ? classesOf(code) : [];
      if (classes.includes('math-inline') || classes.includes('math-display')) {
        const nodes = formula(textOf(code), classes.includes('math-display'));
        children.splice(i, 1, ...nodes);
        i += nodes.length - 1;
      } else visit(child);
    }
  };
  return (tree: HastNode) => visit(tree);
}

type Plugins = NonNullable<Options['remarkPlugins']>;

export const mathRemarkPlugins: Plugins = [[remarkMath, { singleDollarTextMath: true }], remarkMathDisplay];
export const mathRehypePlugins: Plugins = [rehypeKatexFormulas];
