import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import {
  ATTACHMENT_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
  TOOL_CALL_OVERHEAD_TOKENS,
  chars4,
  estimateMessageTokens,
  estimateTextTokens,
} from '../../../src/core';
import { CORPUS_KINDS, quantile, relativeError, requireCorpus, samplePieces } from './corpus';

const plainText = { disallowedSpecial: new Set<string>() };
const exact = (text: string) => countTokens(text, plainText);

const SAMPLES = {
  english:
    'The planner keeps the first user message, then fills the budget with the newest turns that fit, and marks what it left out so the user can see exactly what the model was sent.',
  code: 'export function planContext(history: readonly WindowMessage[], policy: WindowPolicy): Plan {\n  const counts = history.map((message) => counter(message));\n  if (counts.length === 0) return { send: [], evicted: [] };\n  return { send: history.slice(-policy.keepLast), evicted: history.slice(0, -policy.keepLast) };\n}\n',
  json: JSON.stringify(
    { id: 'msg_01SNJCefkpg3kcMGepX63Dvh', type: 'message', role: 'assistant', content: [{ type: 'text', text: 'Done.' }], usage: { input_tokens: 1523, output_tokens: 87 } },
    null,
    2,
  ),
  chinese: '长时间的对话迟早会超出模型的上下文窗口。应用程序需要提前决定发送哪些消息、删减哪些消息，以及用摘要替换哪些消息。第一条用户消息通常说明了对话的目标，因此必须保留。',
  japanese: '長い会話は、いずれモデルのコンテキストウィンドウを超えてしまいます。アプリケーションは、どのメッセージを送信し、どれを削り、どれを要約に置き換えるかを事前に決める必要があります。',
  korean: '긴 대화는 언젠가 모델의 컨텍스트 창을 넘어서게 됩니다. 애플리케이션은 어떤 메시지를 보내고, 어떤 메시지를 줄이고, 어떤 메시지를 요약으로 바꿀지 미리 결정해야 합니다.',
  russian:
    'Длинные разговоры с языковыми моделями рано или поздно упираются в размер контекстного окна. Приложение должно заранее решать, какие сообщения отправить, а какие заменить кратким изложением.',
  base64: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg5QyT3mJ2xK0pLw9ZbVhRnYd8sQ7uE1fGcaM4WkNiZo6',
};

describe('estimateTextTokens', () => {
  it('counts nothing for nothing and at least one token for any text', () => {
    expect(estimateTextTokens('')).toBe(0);
    expect(estimateTextTokens('a')).toBe(1);
    expect(estimateTextTokens(' ')).toBe(1);
  });

  it.each(Object.entries(SAMPLES))('stays within 20 percent of the exact o200k count for %s', (_kind, text) => {
    expect(relativeError(estimateTextTokens(text), exact(text))).toBeLessThan(0.2);
  });

  it('knows CJK text is far denser than 4 characters per token, where chars/4 misses by more than half', () => {
    for (const text of [SAMPLES.chinese, SAMPLES.japanese, SAMPLES.korean]) {
      expect(relativeError(Math.ceil(text.length / 4), exact(text))).toBeGreaterThan(0.5);
      expect(relativeError(estimateTextTokens(text), exact(text))).toBeLessThan(0.2);
    }
  });

  it('prices base64 per character but keeps long camelCase identifiers as words', () => {
    const identifiers = 'CanvasRenderingContext2D WebGL2RenderingContextBase HTMLCanvasElement '.repeat(10);
    expect(relativeError(estimateTextTokens(identifiers), exact(identifiers))).toBeLessThan(0.2);
    expect(relativeError(estimateTextTokens(SAMPLES.base64), exact(SAMPLES.base64))).toBeLessThan(0.2);
  });

  it('is deterministic and additive over repeated text', () => {
    const once = estimateTextTokens(SAMPLES.english);
    expect(estimateTextTokens(SAMPLES.english)).toBe(once);
    const twice = estimateTextTokens(`${SAMPLES.english}\n${SAMPLES.english}`);
    expect(twice).toBeGreaterThanOrEqual(2 * once - 2);
    expect(twice).toBeLessThanOrEqual(2 * once + 2);
  });
});

describe('estimateMessageTokens', () => {
  it('adds the per-message overhead to the text estimate', () => {
    expect(estimateMessageTokens({ role: 'user', content: '' })).toBe(MESSAGE_OVERHEAD_TOKENS);
    expect(estimateMessageTokens({ role: 'user', content: SAMPLES.english })).toBe(MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(SAMPLES.english));
  });

  it('counts the same text the same in both wire shapes', () => {
    const openai = { role: 'user', content: SAMPLES.code };
    const anthropic = { role: 'user', content: [{ type: 'text', text: SAMPLES.code }] };
    expect(estimateMessageTokens(anthropic)).toBe(estimateMessageTokens(openai));
  });

  it('counts tool calls by name and arguments plus framing, in both shapes', () => {
    const args = { path: 'src/core/tokens/estimate.ts', line: 42 };
    const anthropic = { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'read_file', input: args }] };
    const openai = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'read_file', arguments: JSON.stringify(args) } }],
    };
    const expected = MESSAGE_OVERHEAD_TOKENS + TOOL_CALL_OVERHEAD_TOKENS + estimateTextTokens('read_file') + estimateTextTokens(JSON.stringify(args));
    expect(estimateMessageTokens(anthropic)).toBe(expected);
    expect(estimateMessageTokens(openai)).toBe(expected);
  });

  it('charges an image a fixed allowance instead of reading its base64 as text', () => {
    const data = SAMPLES.base64.repeat(2000); // a quarter of a megabyte
    const withImage = {
      role: 'user',
      content: [
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data } },
        { type: 'text', text: 'What is in this picture?' },
      ],
    };
    expect(estimateMessageTokens(withImage)).toBe(MESSAGE_OVERHEAD_TOKENS + ATTACHMENT_TOKENS + estimateTextTokens('What is in this picture?'));
    expect(chars4(withImage)).toBeGreaterThan(50_000); // the seeds' count reads the base64
  });

  it('counts tool results, including nested text blocks', () => {
    const result = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: [{ type: 'text', text: SAMPLES.json }] }] };
    expect(estimateMessageTokens(result)).toBe(MESSAGE_OVERHEAD_TOKENS + estimateTextTokens(SAMPLES.json));
  });
});

describe('default estimator against exact o200k counts on the shared corpus', () => {
  it.each(CORPUS_KINDS)('has a median error under 10 percent on 1,500-character pieces of %s', (kind) => {
    // Fails, never skips, when ../shared/corpus is missing: the accuracy claim must be checked.
    requireCorpus();
    const pieces = samplePieces(kind, 24);
    expect(pieces.length).toBeGreaterThanOrEqual(20);
    const errors = pieces.map((piece) => relativeError(estimateTextTokens(piece), exact(piece)));
    expect(quantile(errors, 0.5)).toBeLessThan(0.1);
  });
});
