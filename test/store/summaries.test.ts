/**
 * The summaries plans ask for, through `send` as the composer calls it, on the real store
 * and fake IndexedDB with a scripted provider: the prompt the provider receives names the
 * conversation's goal and the files whose latest reads stay verbatim; a summary of the same
 * messages comes from the stored cache; a failed one leaves the marker and tells the user.
 */
import { IDBFactory } from 'fake-indexeddb';
import { describe, expect, it } from 'vitest';
import type { ContentBlock, ToolUseBlock, WindowMessage } from '../../src/core';
import type { ChatProvider } from '../../src/providers';
import type { Runtime } from '../../src/store/runtime';
import { attachFiles } from '../../src/store/attachmentActions';
import { regenerateSummary } from '../../src/store/summaries';
import { DEFAULT_SETTINGS, type Settings } from '../../src/store/settings';
import { answer, scriptedRuntime, sendAndSettle } from './scriptedStore';

const text = (t: string): ContentBlock => ({ type: 'text', text: t });
const call = (id: string, name: string, input: unknown): ToolUseBlock => ({ type: 'tool_use', id, name, input });

const FILES = 12;

/** A runtime on fake IndexedDB whose provider answers with `send` and records every summary prompt. */
async function start(
  send: ChatProvider['send'],
  window: Partial<Settings['window']> = { strategy: 'summarize' },
  complete: () => Promise<string> = async () => 'Read the files one by one.',
): Promise<{ rt: Runtime; prompts: string[]; requests: WindowMessage[][] }> {
  globalThis.indexedDB = new IDBFactory();
  const prompts: string[] = [];
  const requests: WindowMessage[][] = [];
  const provider: ChatProvider = {
    id: 'anthropic',
    wireShape: 'anthropic',
    async send(request, callbacks) {
      requests.push(structuredClone(request.messages) as WindowMessage[]);
      return send(request, callbacks);
    },
    async complete(prompt) {
      prompts.push(prompt);
      return complete();
    },
  };
  const rt = await scriptedRuntime(provider);
  rt.store.setState({
    settings: {
      ...DEFAULT_SETTINGS,
      provider: 'anthropic',
      apiKeys: { anthropic: 'sk-test-key-0123456789' },
      models: { anthropic: 'claude-sonnet-4-6' },
      contextWindow: 4000,
      window: { ...DEFAULT_SETTINGS.window, ...window },
    },
  });
  return { rt, prompts, requests };
}

const GOAL = 'Review the attached files.';

/** The files a summary prompt says are kept verbatim after it. */
function listedFiles(prompt: string): string[] {
  return /Files whose latest results are kept verbatim after this summary: ([^\n]*?)\. Focus on what happened/.exec(prompt)?.[1]?.split(', ') ?? [];
}

/** What a request holds, one line per message: the first line of text (cut), `read <name>`, `result`. */
function outline(messages: WindowMessage[]): string[] {
  const cut = (t: string) => (t.split('\n')[0] as string).slice(0, 30);
  return messages.map((m) => {
    if (typeof m.content === 'string') return `${m.role}: ${cut(m.content)}`;
    const blocks = (m.content as Array<Record<string, unknown>>).map((b) =>
      b.type === 'tool_use' ? `read ${(b.input as { name: string }).name}` : b.type === 'tool_result' ? 'result' : cut(String(b.text)),
    );
    return `${m.role}: ${blocks.join(' + ')}`;
  });
}

/**
 * The conversation both tests hold: the goal, the files attached, then one question per file
 * that the model answers by reading it and taking long notes, so summarize trims and summarizes.
 */
async function readEveryFile(): Promise<{ rt: Runtime; prompts: string[]; requests: WindowMessage[][]; id: string }> {
  const started = await start(async (request) => {
    const last = request.messages.at(-1)!;
    if (last.content === GOAL) return answer([text('Attach them, please.')]);
    const asked = typeof last.content === 'string' ? /^Read (f\d+\.txt)\.$/.exec(last.content)?.[1] : undefined;
    if (asked) return answer([call(`toolu_${asked}`, 'read_attachment', { name: asked })]);
    const read = request.messages.at(-2)!.content as unknown as ToolUseBlock[];
    return answer([text(`Notes on ${(read[0]!.input as { name: string }).name}: ${'n'.repeat(1200)}`)]);
  });
  const id = await sendAndSettle(started.rt, GOAL);
  const files = Array.from({ length: FILES }, (_, i) => new File([`line one of f${i + 1}\nline two\n`], `f${i + 1}.txt`, { type: 'text/plain' }));
  await attachFiles(started.rt, id, files);
  for (let n = 1; n <= FILES; n++) await sendAndSettle(started.rt, `Read f${n}.txt.`);
  return { ...started, id };
}

describe('summarize in the store', () => {
  it('asks the provider for a summary that names the goal and the files kept after it, and sends it before them', async () => {
    const { rt, prompts, requests, id } = await readEveryFile();

    expect(prompts.length).toBeGreaterThan(0);
    for (const prompt of prompts) {
      expect(prompt).toContain(`The user's goal: ${GOAL}`);
      expect(listedFiles(prompt).length).toBeGreaterThan(1);
      for (const name of listedFiles(prompt)) expect(name).toMatch(/^f\d+\.txt$/);
    }
    expect((rt.store.getState().messages[id] ?? []).some((m) => m.kind === 'summary')).toBe(true);
    // The last request: the goal, the summary, then the reads it kept, then the newest messages.
    const last = outline(requests.at(-1)!);
    expect(last.slice(0, 2)).toEqual([`user: ${GOAL}`, 'assistant: [Conversation Summary]']);
    expect(last[2]).toMatch(/^assistant: read f\d+\.txt$/);
  });

  it('writes a summary again with the same goal and kept files when asked to regenerate it', async () => {
    const { rt, prompts, id } = await readEveryFile();
    const summary = (rt.store.getState().messages[id] ?? []).find((m) => m.kind === 'summary')!;
    const before = prompts.length;
    await regenerateSummary(rt, summary.id);
    expect(prompts).toHaveLength(before + 1);
    expect(prompts.at(-1)).toContain(`The user's goal: ${GOAL}`);
    expect(listedFiles(prompts.at(-1)!).length).toBeGreaterThan(1);
  });
});

describe('summaries of a count cap', () => {
  // Two messages kept after the first, so sixteen messages evict ten: enough for a summary.
  const COUNT_CAP = { strategy: 'count', summarize: true, maxMessages: 4, preserveFirst: 1, preserveLast: 2 } as const;
  const echo: ChatProvider['send'] = async (request) => answer([text(`You said: ${String(request.messages.at(-1)!.content)}`)]);

  async function chat(rt: Runtime, turns: number): Promise<string> {
    rt.store.setState({ activeId: null });
    let id = '';
    for (let n = 1; n <= turns; n++) id = await sendAndSettle(rt, `Message ${n}.`);
    return id;
  }
  const summariesOf = (rt: Runtime, id: string) => (rt.store.getState().messages[id] ?? []).filter((m) => m.kind === 'summary');

  it('stores the summary once written, and takes it from the cache for the same messages', async () => {
    const { rt, prompts } = await start(echo, COUNT_CAP, async () => 'The first messages.');
    const first = await chat(rt, 8);
    expect(summariesOf(rt, first).map((m) => m.content)).toEqual([[text('[Conversation Summary]\nThe first messages.')]]);
    const written = prompts.length;
    expect(written).toBeGreaterThan(0);

    const second = await chat(rt, 8);
    expect(second).not.toBe(first);
    expect(prompts).toHaveLength(written);
    expect(summariesOf(rt, second).map((m) => [m.content, m.covers?.length])).toEqual(summariesOf(rt, first).map((m) => [m.content, m.covers?.length]));
  });

  it('sends the marker instead and says so when the summary fails', async () => {
    const { rt, prompts, requests } = await start(echo, COUNT_CAP, async () => {
      throw new Error('overloaded');
    });
    const id = await chat(rt, 8);
    expect(prompts.length).toBeGreaterThan(0);
    expect(summariesOf(rt, id)).toEqual([]);
    expect(rt.store.getState().notices.map((n) => n.text)).toContain('Summarizing failed (overloaded); the oldest messages were trimmed instead.');
    expect(requests.at(-1)!.map((m) => String(m.content))).toContainEqual(expect.stringMatching(/^\[\d+ earlier messages truncated to fit context window\]$/));
  });
});
