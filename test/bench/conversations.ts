// Conversations the planner benchmarks run on, generated at run time (never committed)
// from real text: the token corpus of test/core/tokens/corpus.ts (English prose, code,
// JSON, Japanese, Chinese, Korean from the installed packages, or WINDOWPANE_CORPUS), in
// equal parts.
// A fixed seed makes every run plan the same messages.
import type { AnthropicWireMessage, PlanItem } from '../../src/core';
import { CORPUS_KINDS, benchCorpusPieces } from '../core/tokens/corpus';

export type BenchItem = PlanItem<AnthropicWireMessage>;

/** mulberry32: a small deterministic generator of numbers in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let pool: string[] | undefined;

/** Corpus pieces of every kind, interleaved one of each kind at a time. */
function textPool(): string[] {
  if (pool) return pool;
  const byKind = CORPUS_KINDS.map((kind) => benchCorpusPieces(kind));
  const longest = Math.max(...byKind.map((pieces) => pieces.length));
  const mixed: string[] = [];
  for (let i = 0; i < longest; i++) {
    for (const pieces of byKind) if (pieces.length > 0) mixed.push(pieces[i % pieces.length] as string);
  }
  pool = mixed;
  return mixed;
}

/** Hands out text of a requested length, walking the pool in order. */
class TextSource {
  private next = 0;
  constructor(private readonly pieces: readonly string[]) {}

  take(chars: number): string {
    let text = '';
    while (text.length < chars) {
      text += (text ? '\n\n' : '') + (this.pieces[this.next] as string);
      this.next = (this.next + 1) % this.pieces.length;
    }
    let end = chars;
    const last = text.charCodeAt(end - 1);
    if (last >= 0xd800 && last <= 0xdbff) end--; // never split a surrogate pair
    return text.slice(0, end);
  }
}

/** Message sizes in characters: user 50–1,000, assistant 200–3,000 (uniform). */
export const USER_CHARS = [50, 1000] as const;
export const ASSISTANT_CHARS = [200, 3000] as const;

function sizer(random: () => number) {
  return (range: readonly [number, number]) => range[0] + Math.floor(random() * (range[1] - range[0] + 1));
}

/** `count` plain text messages, user and assistant alternating, user first. */
export function chatHistory(count: number, seed = 1): BenchItem[] {
  const random = seededRandom(seed);
  const size = sizer(random);
  const text = new TextSource(textPool());
  const items: BenchItem[] = [];
  for (let i = 0; i < count; i++) {
    const user = i % 2 === 0;
    items.push({ id: `m${i}`, message: { role: user ? 'user' : 'assistant', content: text.take(size(user ? USER_CHARS : ASSISTANT_CHARS)) } });
  }
  return items;
}

/**
 * `count` messages in Anthropic's wire shape, as an agent conversation: every third turn
 * the assistant reads a file through a tool (assistant text + tool_use, user tool_result
 * with 500–4,000 characters of the file, assistant answer), the other turns are plain
 * user/assistant text. Ends on a complete unit.
 */
export function agenticHistory(count: number, seed = 2): BenchItem[] {
  const random = seededRandom(seed);
  const size = sizer(random);
  const text = new TextSource(textPool());
  const items: BenchItem[] = [];
  const add = (message: AnthropicWireMessage) => items.push({ id: `m${items.length}`, message });
  for (let turn = 0; items.length < count; turn++) {
    const left = count - items.length;
    if (left === 1) {
      add({ role: 'user', content: text.take(size(USER_CHARS)) });
      break;
    }
    add({ role: 'user', content: text.take(size(USER_CHARS)) });
    if (turn % 3 === 2 && left >= 4) {
      const id = `toolu_${String(turn).padStart(6, '0')}`;
      add({
        role: 'assistant',
        content: [
          { type: 'text', text: text.take(size([50, 400])) },
          { type: 'tool_use', id, name: 'read_file', input: { path: `src/module${turn}.ts` } },
        ],
      });
      add({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text.take(size([500, 4000])) }] });
    }
    add({ role: 'assistant', content: text.take(size(ASSISTANT_CHARS)) });
  }
  return items;
}

/**
 * A copy made of new objects (items, messages, content arrays, blocks) sharing the
 * strings: what loading a conversation from storage gives, so nothing cached by object
 * identity (token counts, message shapes) applies to it.
 */
export function freshCopy(items: readonly BenchItem[]): BenchItem[] {
  return items.map((item) => {
    const { content } = item.message;
    const copied =
      typeof content === 'string' ? content : content.map((block) => ({ ...block, ...(block.input ? { input: { ...(block.input as object) } } : {}) }));
    return { ...item, message: { role: item.message.role, content: copied } };
  });
}
