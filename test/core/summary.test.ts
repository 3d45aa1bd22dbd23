import { describe, expect, it } from 'vitest';
import {
  CONCISE_SUMMARY_PROMPT,
  STRUCTURED_SUMMARY_PROMPT,
  SUMMARY_PREFIX,
  buildSummaryPrompt,
  extractActivity,
  hashString,
  hasSummarizableText,
  heuristicSummary,
  summaryBody,
  summaryCacheKey,
  summaryMessage,
  summaryTranscript,
  truncationMarker,
  truncationMarkerText,
} from '../../src/core';
import { buildHistory, messagesOf, SHAPES, type ConversationSpec } from './window/conversations';

const spec: ConversationSpec = {
  turns: [
    {
      user: 'Why does the build fail?',
      steps: [
        {
          text: 'Let me check.',
          calls: [
            { name: 'read_file', input: { path: 'src/core/index.ts' }, result: 'export * from "./window/planContext";' },
            { name: 'bash', input: { command: 'npm run build' }, result: 'error TS2307 in src/store/index.ts' },
          ],
        },
        { text: 'A missing module: src/store/chatActions.ts is not committed.' },
      ],
    },
  ],
};

describe('summary prompts', () => {
  it('uses the concise prompt verbatim, followed by the messages’ text', () => {
    expect(CONCISE_SUMMARY_PROMPT).toBe(
      'Summarize the following conversation history concisely. Focus on: what files were read/written, what decisions were made, what problems were encountered, and what the current state of the task is. Be factual and brief.',
    );
    const prompt = buildSummaryPrompt('concise', [
      { role: 'user', content: 'Rename the settings store.' },
      { role: 'assistant', content: 'Renamed it to settingsStore.' },
    ]);
    expect(prompt).toBe(`${CONCISE_SUMMARY_PROMPT}\n\nConversation:\n[user]: Rename the settings store.\n[assistant]: Renamed it to settingsStore.`);
  });

  it('uses the six-part prompt for structured summaries', () => {
    for (const part of ['1. Task Progress', '2. Key Decisions', '3. Files & Changes', '4. Errors & Solutions', '5. Current Focus', '6. Important Context']) {
      expect(STRUCTURED_SUMMARY_PROMPT).toContain(part);
    }
    expect(buildSummaryPrompt('structured', [{ role: 'user', content: 'x' }]).startsWith(STRUCTURED_SUMMARY_PROMPT)).toBe(true);
  });

  it('extends a previous summary instead of re-summarizing what it covers', () => {
    const prompt = buildSummaryPrompt('concise', [{ role: 'user', content: 'Now add tests.' }], `${SUMMARY_PREFIX}\nThe store was renamed.`);
    expect(prompt).toContain('Previous summary (extend it with the conversation below; keep what still matters):\nThe store was renamed.');
    expect(prompt).not.toContain(SUMMARY_PREFIX);
    expect(prompt.endsWith('Conversation:\n[user]: Now add tests.')).toBe(true);
  });

  it('keeps the goal and the files kept verbatim in view when given them', () => {
    const messages = [{ role: 'user', content: 'Now add tests.' }];
    const prompt = buildSummaryPrompt('concise', messages, `${SUMMARY_PREFIX}\nThe store was renamed.`, {
      goal: 'Rename the settings store and keep the tests green.',
      preservedFiles: ['src/store/settings.ts', 'test/store/settings.test.ts'],
    });
    expect(prompt.startsWith(`${CONCISE_SUMMARY_PROMPT}\n\nThe user's goal: Rename the settings store and keep the tests green.\n\n`)).toBe(true);
    expect(prompt).toContain(
      'Files whose latest results are kept verbatim after this summary: src/store/settings.ts, test/store/settings.test.ts. Focus on what happened — what was done with these files and why — and do not repeat their contents.',
    );
    // Before the previous summary and the transcript.
    expect(prompt.indexOf('Files whose latest results')).toBeLessThan(prompt.indexOf('Previous summary'));
    expect(prompt.endsWith('Conversation:\n[user]: Now add tests.')).toBe(true);
    // No focus, or an empty one: the prompt and its cache key are as before.
    expect(buildSummaryPrompt('concise', messages, undefined, {})).toBe(buildSummaryPrompt('concise', messages));
    expect(summaryCacheKey('concise', messages, undefined, { preservedFiles: [] })).toBe(summaryCacheKey('concise', messages));
    expect(summaryCacheKey('concise', messages, undefined, { goal: 'Ship it.' })).not.toBe(summaryCacheKey('concise', messages));
  });

  it.each(SHAPES)('writes tool calls and results of the %s shape into the transcript', (shape) => {
    const transcript = summaryTranscript(messagesOf(buildHistory(spec, shape)));
    expect(transcript).toContain('[user]: Why does the build fail?');
    expect(transcript).toContain('[assistant called read_file]: {"path":"src/core/index.ts"}');
    expect(transcript).toContain('[tool result]: error TS2307 in src/store/index.ts');
    expect(transcript).toContain('[assistant]: A missing module');
  });

  it('quotes long tool output only in part', () => {
    const transcript = summaryTranscript([{ role: 'tool', tool_call_id: 'c', content: 'x'.repeat(5000) }]);
    expect(transcript.length).toBeLessThan(2100);
    expect(transcript).toContain('[3000 more characters]');
  });
});

describe('hasSummarizableText', () => {
  it('is false for tool calls and results alone (skip the summary)', () => {
    const history = messagesOf(buildHistory({ turns: [{ user: 'x', steps: [{ calls: [{ name: 'ls', input: {}, result: 'a.ts' }] }] }] }, 'openai')).slice(1);
    expect(hasSummarizableText(history)).toBe(false);
    expect(hasSummarizableText([{ role: 'assistant', content: null }, { role: 'user', content: '  ' }])).toBe(false);
    expect(hasSummarizableText([...history, { role: 'assistant', content: 'Listed the files.' }])).toBe(true);
  });
});

describe('summary and marker messages', () => {
  it('prefixes the summary with "[Conversation Summary]" once, as an assistant message by default', () => {
    expect(summaryMessage('We chose idb.')).toEqual({ role: 'assistant', content: '[Conversation Summary]\nWe chose idb.' });
    expect(summaryMessage('[Conversation Summary]\nWe chose idb.', 'user')).toEqual({ role: 'user', content: '[Conversation Summary]\nWe chose idb.' });
    expect(summaryBody('[Conversation Summary]\nWe chose idb.')).toBe('We chose idb.');
  });

  it('uses the truncation marker text verbatim', () => {
    expect(truncationMarkerText(12)).toBe('[12 earlier messages truncated to fit context window]');
    expect(truncationMarker(3)).toEqual({ role: 'assistant', content: '[3 earlier messages truncated to fit context window]' });
  });
});

describe('heuristic summary (two-tier, first tier)', () => {
  it.each(SHAPES)('finds tools used, files explored and commands run in the %s shape', (shape) => {
    const activity = extractActivity(messagesOf(buildHistory(spec, shape)));
    expect(activity.tools).toEqual([
      { name: 'read_file', calls: 1 },
      { name: 'bash', calls: 1 },
    ]);
    expect(activity.files).toEqual(['src/core/index.ts', 'src/store/index.ts', 'src/store/chatActions.ts']);
    expect(activity.commands).toEqual(['npm run build']);
  });

  it('finds paths and $-commands in prose, without sentence punctuation', () => {
    const activity = extractActivity([{ role: 'user', content: 'See README.md. Then:\n$ npm ci\nand open ./src/main.tsx, please.' }]);
    expect(activity.files).toEqual(['README.md', './src/main.tsx']);
    expect(activity.commands).toEqual(['npm ci']);
  });

  it('lists what it found and carries a previous summary over', () => {
    const body = heuristicSummary(messagesOf(buildHistory(spec, 'anthropic')), { previous: '[Conversation Summary]\nEarlier: set up Vite.', condensed: 4 });
    expect(body).toBe(
      [
        'Condensed 4 earlier messages without an AI call.',
        'Earlier summary:\nEarlier: set up Vite.',
        'Tools used: read_file (1), bash (1)',
        'Files explored: src/core/index.ts, src/store/index.ts, src/store/chatActions.ts',
        'Commands run: npm run build',
      ].join('\n'),
    );
    expect(heuristicSummary([{ role: 'user', content: 'hello' }])).toContain('Tools used: none');
  });
});

describe('summary cache key', () => {
  const messages = messagesOf(buildHistory(spec, 'openai'));

  it('is the same for the same content and previous summary, and differs otherwise', () => {
    const key = summaryCacheKey('concise', messages);
    expect(summaryCacheKey('concise', structuredClone(messages))).toBe(key);
    expect(summaryCacheKey('concise', messages, 'previous')).not.toBe(key);
    expect(summaryCacheKey('structured', messages)).not.toBe(key);
    expect(summaryCacheKey('concise', messages.slice(1))).not.toBe(key);
    expect(key).toMatch(/^concise:[0-9a-f]{16}$/);
  });

  it('hashes deterministically to 16 hex digits', () => {
    expect(hashString('')).toMatch(/^[0-9a-f]{16}$/);
    expect(hashString('abc')).toBe(hashString('abc'));
    expect(new Set(['a', 'b', 'ab', 'ba', 'abc', 'acb'].map(hashString)).size).toBe(6);
  });
});

// The heuristic summary of a stretch where the built-in tools were used.
const read = (input: Record<string, unknown>) => ({ name: 'read_attachment', input, result: 'lines…' });
const run = (code: string) => ({ name: 'run_javascript', input: { code }, result: 'Result: 3' });

const toolSpec: ConversationSpec = {
  turns: [
    {
      user: 'Why do the requests in app.log fail after 10:00?',
      steps: [
        { calls: [read({})] },
        { calls: [read({ name: 'app.log', start_line: 1, end_line: 400 }), read({ name: 'deploy.md', start_line: 12, end_line: 12 })] },
        { calls: [read({ name: 'app.log', start_line: 401, end_line: 800 })] },
        { calls: [read({ name: 'app.log', start_line: 1200 })] },
        { calls: [run('\n  const failed = rows.filter((r) => r.status >= 500);\nfailed.length')] },
        { calls: [run(`console.log(${'1 + '.repeat(60)}1)`)] },
        { text: 'The failures start with the 10:02 deploy.' },
      ],
    },
  ],
};

describe('heuristic summary: the built-in tools', () => {
  it.each(SHAPES)('finds the attached files read, with merged line ranges, and the code run (%s)', (shape) => {
    const { tools, filesRead, codeRun } = extractActivity(messagesOf(buildHistory(toolSpec, shape)));
    expect(tools.map((tool) => `${tool.name} ×${tool.calls}`)).toEqual(['read_attachment ×5', 'run_javascript ×2']);
    // A listing reads no file; no end_line means the tool's default of 400 lines.
    expect(filesRead.map((file) => `${file.name} ${file.lines.map((r) => `${r.start}-${r.end}`).join(',')}`)).toEqual(['app.log 1-800,1200-1599', 'deploy.md 12-12']);
    expect(codeRun).toEqual(['const failed = rows.filter((r) => r.status >= 500);', `console.log(${'1 + '.repeat(60)}1)`.slice(0, 120) + '…']);
  });

  it('lists them in the summary, and says nothing of them when they were not used', () => {
    const body = heuristicSummary(messagesOf(buildHistory(toolSpec, 'anthropic')));
    expect(body.split('\n').slice(1)).toEqual([
      'Tools used: read_attachment (5), run_javascript (2)',
      'Files explored: none',
      'Commands run: none',
      'Files read: app.log (lines 1–800, lines 1200–1599); deploy.md (line 12)',
      `Code run: \`const failed = rows.filter((r) => r.status >= 500);\`; \`${`console.log(${'1 + '.repeat(60)}1)`.slice(0, 120)}…\``,
    ]);
    expect(heuristicSummary([{ role: 'user', content: 'hello' }])).not.toMatch(/Files read|Code run/);
  });

  it('keeps at most 8 ranges per file and 10 snippets', () => {
    const scattered: ConversationSpec = {
      turns: [
        {
          user: 'Sample the log.',
          steps: Array.from({ length: 12 }, (_, i) => ({ calls: [read({ name: 'app.log', start_line: i * 100 + 1, end_line: i * 100 + 10 }), run(`step${i}()`)] })),
        },
      ],
    };
    const activity = extractActivity(messagesOf(buildHistory(scattered, 'openai')));
    expect(activity.filesRead[0]?.lines).toHaveLength(8);
    expect(activity.filesRead[0]?.lines[7]).toEqual({ start: 701, end: 710 });
    expect(activity.codeRun).toEqual(Array.from({ length: 10 }, (_, i) => `step${i}()`));
  });
});
