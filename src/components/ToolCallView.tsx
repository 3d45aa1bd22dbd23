import { lazy, memo, Suspense, useId, useState } from 'react';
import type { ToolUseBlock } from '../core';
import { parseToolArguments, READ_ATTACHMENT, RUN_JAVASCRIPT } from '../core';
import type { ToolResultView } from '../store';

export interface ToolCallViewProps {
  call: ToolUseBlock;
  /** The result answering this call, once there is one. */
  result?: ToolResultView;
  /** The turn is still running, so a call without a result is waiting for it. */
  pending?: boolean;
  /** The provider ran this call itself, through its MCP connector: who, on which server. */
  ranBy?: { provider: string; server: string };
}

// Only a tool that returned images shows them: the same chunk as a message's images.
const MessageImages = lazy(() => import('./MessageImages').then((module) => ({ default: module.MessageImages })));

/** Output longer than this many characters or lines is clipped until "Show more". */
const CLIP_CHARS = 1500;
const CLIP_LINES = 20;
const SUMMARY_CHARS = 60;

function shorten(text: string, max = SUMMARY_CHARS): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** One line saying what the call asked for: "app.log lines 1–400", the first line of the code. */
function argumentSummary(call: ToolUseBlock): string {
  const parsed = parseToolArguments(call.input);
  if (!parsed.ok) return 'arguments not valid JSON';
  const args = parsed.args;
  if (call.name === READ_ATTACHMENT) {
    if (args.name === undefined) return 'list files';
    const name = shorten(String(args.name), 40);
    const [start, end] = [args.start_line, args.end_line];
    if (start !== undefined && end !== undefined) return `${name} lines ${String(start)}–${String(end)}`;
    if (start !== undefined) return `${name} from line ${String(start)}`;
    if (end !== undefined) return `${name} lines 1–${String(end)}`;
    return name;
  }
  const code = codeArgument(call.name, args);
  if (code !== undefined) {
    const lines = code.split('\n').map((l) => l.trim());
    const first = lines.find((l) => l !== '') ?? '';
    const more = lines.filter((l) => l !== '').length > 1;
    return more && first.length <= SUMMARY_CHARS ? `${shorten(first, SUMMARY_CHARS - 2)} …` : shorten(first);
  }
  return Object.keys(args).length === 0 ? '' : shorten(JSON.stringify(args));
}

/**
 * Code (or a command) a call carries as its one argument, shown as written rather than as
 * JSON: run_javascript's `code`, and an imported ChatGPT call's Python or browser command.
 */
function codeArgument(name: string, args: Record<string, unknown>): string | undefined {
  if (name === RUN_JAVASCRIPT) return typeof args.code === 'string' ? args.code : undefined;
  const keys = Object.keys(args);
  if (keys.length !== 1) return undefined;
  const only = args[keys[0]!];
  return (keys[0] === 'code' || keys[0] === 'input') && typeof only === 'string' ? only : undefined;
}

/** The full arguments: the code itself for run_javascript, formatted JSON otherwise. */
function fullArguments(call: ToolUseBlock): string {
  const parsed = parseToolArguments(call.input);
  const code = parsed.ok ? codeArgument(call.name, parsed.args) : undefined;
  if (code !== undefined) return code;
  return typeof call.input === 'string' ? call.input : JSON.stringify(call.input, null, 2);
}

function clipAt(text: string): number | null {
  let at = text.length > CLIP_CHARS ? CLIP_CHARS : -1;
  let newline = -1;
  for (let line = 0; line < CLIP_LINES; line++) {
    newline = text.indexOf('\n', newline + 1);
    if (newline < 0) break;
  }
  if (newline >= 0 && newline < text.length - 1 && (at < 0 || newline < at)) at = newline;
  return at < 0 ? null : at;
}

/**
 * One tool call as a compact row: the tool and what it asked for, collapsed; opened, the
 * full arguments and the output (long output clipped until "Show more"). A failed call is
 * marked as an error, a result the plan no longer sends as cleared from context.
 */
export const ToolCallView = memo(function ToolCallView({ call, result, pending, ranBy }: ToolCallViewProps) {
  const [open, setOpen] = useState(false);
  const [full, setFull] = useState(false);
  const panelId = useId();
  const output = result?.block.content ?? '';
  const images = result?.block.images ?? [];
  const clip = full ? null : clipAt(output);
  const isError = Boolean(result?.block.is_error);
  const cleared = Boolean(result?.cleared);
  const status = result ? null : pending ? 'running…' : 'no result';
  return (
    <div className={`tool-call${isError ? ' tool-call-error' : ''}${cleared ? ' tool-call-cleared' : ''}`} data-tool-call-id={call.id}>
      <button type="button" className="tool-call-toggle" aria-expanded={open} aria-controls={panelId} onClick={() => setOpen((o) => !o)}>
        <span className="tool-call-chevron" aria-hidden="true" />
        {/* Spaces between the parts: the button's accessible name is their text run together. */}
        <code className="tool-call-name">{call.name}</code> <span className="tool-call-args">{argumentSummary(call)}</span>
        {ranBy && (
          <>
            {' '}
            <span className="badge badge-muted" title={`${ranBy.provider} connected to the MCP server itself and ran this call while it answered`}>
              run by {ranBy.provider} on {ranBy.server}
            </span>
          </>
        )}
        {isError && (
          <>
            {' '}
            <span className="badge badge-error">error</span>
          </>
        )}
        {cleared && (
          <>
            {' '}
            {result?.byProvider ? (
              <span className="badge badge-muted" title="To save context, the next request sends this result whole and asks the provider to clear it">
                cleared by the provider
              </span>
            ) : (
              <span className="badge badge-muted" title="To save context, the next request sends a short placeholder instead of this result">
                cleared from context — not sent
              </span>
            )}
          </>
        )}
        {status && (
          <>
            {' '}
            <span className="badge badge-muted">{status}</span>
          </>
        )}
      </button>
      <div id={panelId} className="tool-call-details" hidden={!open}>
        <p className="tool-call-label">Arguments</p>
        <pre className="tool-call-arguments">{fullArguments(call)}</pre>
        {result && (
          <>
            <p className="tool-call-label">{isError ? 'Error' : 'Output'}</p>
            {(output !== '' || images.length === 0) && <pre className="tool-call-output">{clip === null ? output : `${output.slice(0, clip)}\n…`}</pre>}
            {(clip !== null || full) && (
              <button type="button" className="link-button" aria-expanded={full} onClick={() => setFull((f) => !f)}>
                {full ? 'Show less' : `Show more (${(output.length - (clip ?? 0)).toLocaleString('en-US')} more characters)`}
              </button>
            )}
            {images.length > 0 && (
              // Shown only once opened, so a collapsed call reads no file; stored images, never the server's markup.
              <Suspense fallback={null}>{open && <MessageImages images={images} notSent={result?.imagesNotSent} label="Images the tool returned" />}</Suspense>
            )}
          </>
        )}
      </div>
    </div>
  );
});
