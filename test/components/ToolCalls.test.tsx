import { cleanup, getDefaultNormalizer, render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { MessageView } from '../../src/components/MessageView';
import type { ContentBlock, StoredMessage } from '../../src/core';
import { openWindowpaneStorage } from '../../src/persistence';
import { pairToolResults } from '../../src/store/toolTranscript';
import type { TranscriptRow } from '../../src/store/transcript';
import { DEFAULT_SETTINGS } from '../../src/store/settings';
import { renderApp, resetApp, seedSettings } from './appHarness';

const LOG = 'app.log, lines 1–3 of 3:\nboot\nready\nfailed: disk full\n';

/** A finished turn in which the model read a file and ran code that failed, as the send loop stores it. */
const TOOL_TURN: Array<Pick<StoredMessage, 'role' | 'content'>> = [
  { role: 'user', content: [{ type: 'text', text: 'Why did the service stop?' }] },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Let me read the log.' },
      { type: 'tool_use', id: 'toolu_read', name: 'read_attachment', input: { name: 'app.log', start_line: 1, end_line: 400 } },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_read', content: LOG }] },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_run', name: 'run_javascript', input: { code: 'const free = disk.free;\nfree / 1e9' } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_run', content: 'Error: ReferenceError: disk is not defined', is_error: true }] },
  { role: 'assistant', content: [{ type: 'text', text: 'The disk was full when it stopped.' }] },
];

/** A tool loop that read part after part of a long log: each result is about 800 tokens. */
function longReads(parts: number): Array<Pick<StoredMessage, 'role' | 'content'>> {
  const turn: Array<Pick<StoredMessage, 'role' | 'content'>> = [{ role: 'user', content: [{ type: 'text', text: 'Find the first error in build.log.' }] }];
  for (let part = 1; part <= parts; part++) {
    const [start, end] = [(part - 1) * 40 + 1, part * 40];
    const lines = Array.from({ length: 40 }, (_, i) => `${start + i}\tstep ${start + i}: compiled module number ${start + i} of the build without warnings`);
    turn.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `toolu_part${part}`, name: 'read_attachment', input: { name: 'build.log', start_line: start, end_line: end } }],
    });
    turn.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `toolu_part${part}`, content: `build.log, lines ${start}–${end} of 400:\n${lines.join('\n')}` }],
    });
  }
  turn.push({ role: 'assistant', content: [{ type: 'text', text: 'No error in the first parts.' }] });
  return turn;
}

async function seedConversationOf(title: string, messages: Array<Pick<StoredMessage, 'role' | 'content'>>): Promise<void> {
  const storage = await openWindowpaneStorage();
  try {
    const { id } = await storage.repositories.conversations.createConversation({ title });
    for (const message of messages) await storage.repositories.conversations.appendMessage({ conversationId: id, ...message });
  } finally {
    storage.close();
  }
}

describe('tool calls in the transcript (App, fake IndexedDB)', { timeout: 15_000 }, () => {
  beforeEach(() => resetApp());

  it('marks the results the next request sends as a placeholder "cleared from context — not sent", and not the newest ones', async () => {
    await seedSettings({ ...DEFAULT_SETTINGS, provider: 'anthropic', apiKeys: { anthropic: 'sk-ant-test' }, contextWindow: 6000, maxOutputTokens: 500 });
    await seedConversationOf('Build log', longReads(8));
    renderApp();
    await userEvent.click(await screen.findByRole('button', { name: 'Build log' }));
    await screen.findByText('No error in the first parts.');
    const rows = within(screen.getByRole('log', { name: 'Transcript' })).getAllByRole('button', { name: /^read_attachment build\.log lines/ });
    expect(rows).toHaveLength(8);
    const cleared = rows.map((row) => /cleared from context — not sent$/.test(row.textContent ?? ''));
    // Old results go first; the newest three are always sent whole.
    expect(cleared.slice(-3)).toEqual([false, false, false]);
    expect(cleared[0]).toBe(true);
    expect(cleared.indexOf(false)).toBe(cleared.lastIndexOf(true) + 1);
    for (const [i, row] of rows.entries()) expect(row.closest('.tool-call')!.classList.contains('tool-call-cleared')).toBe(cleared[i]);
    // The calls themselves are still sent: their messages are not dimmed.
    expect(screen.queryByText('not sent', { exact: true })).not.toBeInTheDocument();
    // Opened, a cleared result still shows what the model read then.
    await userEvent.click(rows[0]!);
    expect(document.getElementById(rows[0]!.getAttribute('aria-controls')!)).toHaveTextContent('1 step 1: compiled module number 1');
  });

  it('shows each call as one collapsed row under the answer, its result under it, and no "You" bubble for results', async () => {
    await seedConversationOf('Outage', TOOL_TURN);
    renderApp();
    await userEvent.click(await screen.findByRole('button', { name: 'Outage' }));
    await screen.findByText('The disk was full when it stopped.');
    const log = screen.getByRole('log', { name: 'Transcript' });
    expect(within(log).getAllByRole('article', { name: 'User message' })).toHaveLength(1);
    expect(within(log).getAllByRole('article', { name: 'Assistant message' })).toHaveLength(3);

    const read = within(log).getByRole('button', { name: /^read_attachment app\.log lines 1–400/ });
    expect(read).toHaveAttribute('aria-expanded', 'false');
    expect(within(log).queryByText(/failed: disk full/)).not.toBeVisible();
    await userEvent.click(read);
    expect(read).toHaveAttribute('aria-expanded', 'true');
    const details = document.getElementById(read.getAttribute('aria-controls')!)!;
    expect(details).toBeVisible();
    expect(details).toHaveTextContent('"start_line": 1');
    expect(details).toHaveTextContent('failed: disk full');

    const run = within(log).getByRole('button', { name: /^run_javascript const free = disk\.free; …/ });
    expect(run).toHaveAccessibleName(/error$/);
    await userEvent.click(run);
    const runDetails = document.getElementById(run.getAttribute('aria-controls')!)!;
    expect(runDetails).toHaveTextContent(/Arguments\s*const free = disk\.free;\s*free \/ 1e9\s*Error\s*Error: ReferenceError: disk is not defined/);
  });
});

function row(message: Partial<StoredMessage> & Pick<StoredMessage, 'id' | 'role' | 'content'>): TranscriptRow {
  return {
    kind: 'message',
    key: message.id,
    notSent: false,
    message: { conversationId: 'c1', seq: 0, kind: 'message', createdAt: 0, status: 'complete', ...message },
  };
}

function call(id: string, name: string, input: unknown): ContentBlock {
  return { type: 'tool_use', id, name, input };
}

/** Renders the assistant message of `calls`, with results paired the way the chat screen pairs them. */
function renderCalls(calls: ContentBlock[], results: ContentBlock[], options: { cleared?: string[]; pending?: boolean } = {}) {
  const rows = [row({ id: 'u0', role: 'user', content: [{ type: 'text', text: 'Go' }] }), row({ id: 'a1', role: 'assistant', content: calls })];
  if (results.length > 0) rows.push(row({ id: 'u1', role: 'user', content: results }));
  const paired = pairToolResults(rows, new Set(options.cleared));
  const answer = paired.find((r) => r.kind === 'message' && r.message.id === 'a1') as Extract<TranscriptRow, { kind: 'message' }>;
  render(<MessageView message={answer.message} toolResults={answer.toolResults} toolsPending={options.pending} />);
  return { paired, article: screen.getByRole('article', { name: 'Assistant message' }) };
}

describe('a tool call row', () => {
  it('sums up its arguments in one line per tool', () => {
    renderCalls(
      [
        call('t1', 'read_attachment', {}),
        call('t2', 'read_attachment', { name: 'data.csv' }),
        call('t3', 'read_attachment', { name: 'data.csv', start_line: 401 }),
        call('t4', 'run_javascript', { code: '\n  [1, 2, 3].map((n) => n * 2)\n' }),
        call('t5', 'run_javascript', { code: 'let total = 0;\nfor (const n of rows) total += n;\ntotal' }),
        call('t6', 'read_attachment', '{"name": "app.log", "start_'),
      ],
      [],
    );
    expect(screen.getAllByRole('button', { expanded: false }).map((b) => b.textContent)).toEqual([
      'read_attachment list files no result',
      'read_attachment data.csv no result',
      'read_attachment data.csv from line 401 no result',
      'run_javascript [1, 2, 3].map((n) => n * 2) no result',
      'run_javascript let total = 0; … no result',
      'read_attachment arguments not valid JSON no result',
    ]);
  });

  it('shows an imported call’s code or command as written, and nothing for a call without arguments', async () => {
    renderCalls(
      [
        call('t1', 'python', { code: 'import numpy as np\nnp.pi' }),
        call('t2', 'browser', { input: 'search("latest Python release")' }),
        call('t3', 'browser', {}),
        call('t4', 'dalle_text2im', { prompt: 'A robin' }),
      ],
      [
        { type: 'tool_result', tool_use_id: 't1', content: '3.141592653589793' },
        { type: 'tool_result', tool_use_id: 't2', content: '[0] Python.org' },
        { type: 'tool_result', tool_use_id: 't3', content: 'A quote' },
        { type: 'tool_result', tool_use_id: 't4', content: '[Image — not included in the export file]' },
      ],
    );
    const rows = screen.getAllByRole('button', { expanded: false });
    expect(rows.map((b) => b.textContent)).toEqual([
      'python import numpy as np …',
      'browser search("latest Python release")',
      'browser ',
      'dalle_text2im {"prompt":"A robin"}',
    ]);
    await userEvent.click(rows[0]!);
    expect(document.querySelector('.tool-call-arguments')).toHaveTextContent('import numpy as np np.pi', { normalizeWhitespace: true });
  });

  it('pairs results by call id, leaving out the message that only carried them', () => {
    const { paired } = renderCalls(
      [call('t1', 'read_attachment', {}), call('t2', 'run_javascript', { code: '1 + 1' })],
      [
        { type: 'tool_result', tool_use_id: 't2', content: 'Result: 2' },
        { type: 'tool_result', tool_use_id: 't1', content: '1 file attached:\n- a.txt' },
      ],
    );
    expect(paired.map((r) => r.key)).toEqual(['u0', 'a1']);
    expect(screen.getByRole('button', { name: /^read_attachment list files$/ })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /^run_javascript 1 \+ 1$/ })).toBeInTheDocument();
  });

  it('leaves out Copy, Regenerate and Pin on a step that only calls tools, and keeps them where there is text', () => {
    renderCalls([call('t1', 'run_javascript', { code: '1' })], []);
    const onlyCalls = screen.getByRole('article', { name: 'Assistant message' });
    expect(within(onlyCalls).queryByRole('button', { name: 'Copy' })).not.toBeInTheDocument();
    cleanup();
    renderCalls([{ type: 'text', text: 'Let me check.' }, call('t1', 'run_javascript', { code: '1' })], []);
    expect(within(screen.getByRole('article', { name: 'Assistant message' })).getByRole('button', { name: 'Copy' })).toBeInTheDocument();
  });

  it('keeps a results message whose call is not in the transcript', () => {
    const rows = [row({ id: 'u1', role: 'user', content: [{ type: 'tool_result', tool_use_id: 'gone', content: 'orphan' }] })];
    expect(pairToolResults(rows)).toEqual(rows);
  });

  it('opens and closes from the keyboard', async () => {
    renderCalls([call('t1', 'run_javascript', { code: '40 + 2' })], [{ type: 'tool_result', tool_use_id: 't1', content: 'Result: 42' }]);
    const toggle = screen.getByRole('button', { name: /^run_javascript 40 \+ 2/ });
    await userEvent.tab();
    expect(toggle).toHaveFocus();
    await userEvent.keyboard('{Enter}');
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByText('Result: 42')).toBeVisible();
    await userEvent.keyboard(' ');
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(screen.getByText('Result: 42')).not.toBeVisible();
  });

  it('clips long output until "Show more"', async () => {
    const output = Array.from({ length: 60 }, (_, i) => `line ${i + 1}`).join('\n');
    renderCalls(
      [call('t1', 'read_attachment', { name: 'big.log', start_line: 1, end_line: 60 })],
      [{ type: 'tool_result', tool_use_id: 't1', content: output }],
    );
    await userEvent.click(screen.getByRole('button', { name: /^read_attachment big\.log lines 1–60/ }));
    const shown = () => screen.getByText(/^line 1\n/, { normalizer: getDefaultNormalizer({ trim: false, collapseWhitespace: false }) }).textContent!;
    expect(shown()).toContain('line 20');
    expect(shown()).not.toContain('line 21');
    await userEvent.click(screen.getByRole('button', { name: `Show more (${output.length - output.indexOf('\nline 21')} more characters)` }));
    expect(shown()).toBe(output);
    await userEvent.click(screen.getByRole('button', { name: 'Show less' }));
    expect(shown()).not.toContain('line 21');
  });

  it('marks a result the plan cleared as not sent, in the dimmed style', () => {
    renderCalls(
      [call('t1', 'read_attachment', { name: 'old.log' }), call('t2', 'read_attachment', { name: 'new.log' })],
      [
        { type: 'tool_result', tool_use_id: 't1', content: 'old lines' },
        { type: 'tool_result', tool_use_id: 't2', content: 'new lines' },
      ],
      { cleared: ['t1'] },
    );
    const cleared = screen.getByRole('button', { name: /^read_attachment old\.log/ });
    expect(cleared).toHaveAccessibleName('read_attachment old.log cleared from context — not sent');
    expect(cleared.closest('.tool-call')).toHaveClass('tool-call-cleared');
    const kept = screen.getByRole('button', { name: /^read_attachment new\.log/ });
    expect(kept).toHaveAccessibleName('read_attachment new.log');
    expect(kept.closest('.tool-call')).not.toHaveClass('tool-call-cleared');
  });

  it('marks, once opened, a tool’s image the next request leaves out as not sent, and only that one', async () => {
    resetApp();
    const image = (fileId: string) => ({
      type: 'image' as const,
      fileId,
      mediaType: 'image/png' as const,
      name: `${fileId}.png`,
      width: 2,
      height: 2,
      bytes: 70,
    });
    const rows = [
      row({ id: 'u0', role: 'user', content: [{ type: 'text', text: 'Chart it' }] }),
      row({ id: 'a1', role: 'assistant', content: [call('t1', 'mcp_tracker__chart', {})] }),
      {
        ...row({ id: 'u1', role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'Two charts.', images: [image('old'), image('new')] }] }),
        imagesNotSent: ['old'],
      },
    ];
    const answer = pairToolResults(rows).find((r) => r.kind === 'message' && r.message.id === 'a1') as Extract<TranscriptRow, { kind: 'message' }>;
    expect(answer.toolResults?.t1?.imagesNotSent).toEqual(['old']);
    renderApp(<MessageView message={answer.message} toolResults={answer.toolResults} />);
    await userEvent.click(screen.getByRole('button', { name: /^mcp_tracker__chart/ }));
    const shown = await screen.findByRole('list', { name: 'Images the tool returned' });
    const [older, newer] = within(shown).getAllByRole('listitem');
    expect(older).toHaveTextContent(/old\.png · 2×2\s*not sent/);
    expect(older).toHaveClass('not-sent');
    expect(newer).not.toHaveTextContent('not sent');
  });

  it('says a call is running while the turn goes on', () => {
    renderCalls([call('t1', 'run_javascript', { code: 'while (true) {}' })], [], { pending: true });
    expect(screen.getByRole('button', { name: /^run_javascript while \(true\) \{\}/ })).toHaveAccessibleName('run_javascript while (true) {} running…');
  });

  it('shows the raw text the model sent when its arguments were not JSON', async () => {
    renderCalls(
      [call('t1', 'read_attachment', '{"name": "app.log", "start_')],
      [{ type: 'tool_result', tool_use_id: 't1', content: 'The arguments of read_attachment were not valid JSON', is_error: true }],
    );
    const toggle = screen.getByRole('button', { name: 'read_attachment arguments not valid JSON error' });
    await userEvent.click(toggle);
    await waitFor(() => expect(screen.getByText('{"name": "app.log", "start_')).toBeVisible());
  });

  it('reads arguments kept as JSON text (an imported OpenAI call) like an input object', async () => {
    renderCalls([call('t1', 'read_attachment', '{"name": "app.log", "start_line": 5}'), call('t2', 'run_javascript', '{"code": "6 * 7"}')], []);
    expect(screen.getAllByRole('button', { expanded: false }).map((b) => b.textContent)).toEqual([
      'read_attachment app.log from line 5 no result',
      'run_javascript 6 * 7 no result',
    ]);
    await userEvent.click(screen.getByRole('button', { name: 'run_javascript 6 * 7 no result' }));
    await waitFor(() => expect(screen.getByText('6 * 7', { selector: 'pre' })).toBeVisible());
  });
});
