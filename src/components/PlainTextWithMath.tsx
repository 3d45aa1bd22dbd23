import { memo, use, type ReactNode } from 'react';
import ReactMarkdown from 'react-markdown';
import { hasMath, markdownLimitExceeded, mathSegments } from '../core';
import { mathPlugins } from './Markdown';

const Unwrapped = ({ children }: { children?: ReactNode }) => <>{children}</>;

/**
 * Text shown as written (a user's message: no Markdown), with its formulas rendered by KaTeX
 * when it holds any and is within the Markdown limits (the math chunk loads only then).
 */
export default memo(function UserText({ text }: { text: string }) {
  return hasMath(text) && !markdownLimitExceeded(text) ? <PlainTextWithMath text={text} /> : <p className="plain">{text}</p>;
});

function PlainTextWithMath({ text }: { text: string }) {
  const loading = mathPlugins();
  const math = loading instanceof Promise ? use(loading) : loading;
  return (
    <p className="plain">
      {mathSegments(text).map((segment, i) =>
        segment.kind === 'text' ? (
          segment.text
        ) : (
          <ReactMarkdown key={i} remarkPlugins={math.mathRemarkPlugins} rehypePlugins={math.mathRehypePlugins} components={{ p: Unwrapped }}>
            {segment.display ? `$$${segment.tex}$$` : `$${segment.tex}$`}
          </ReactMarkdown>
        ),
      )}
    </p>
  );
}
