import { messageText, type StoredMessage } from '../../src/core';
import { fmtMs, fmtRatio, medianMs, type Row } from './harness';

/** Reading the text of 10,000 stored messages, against one JSON.stringify of them. */
export async function run(): Promise<Row[]> {
  const messages: Pick<StoredMessage, 'content'>[] = Array.from({ length: 10_000 }, (_, i) => ({
    content: [
      { type: 'text', text: `message ${i} `.repeat(20) },
      { type: 'tool_use', id: `toolu_${i}`, name: 'read_attachment', input: { path: `f${i}.ts` } },
    ],
  }));
  const t = await medianMs({
    messageText: () => messages.reduce((n, m) => n + messageText(m).length, 0),
    'JSON.stringify': () => JSON.stringify(messages).length,
  });
  const value = t.messageText ?? NaN;
  const baseline = t['JSON.stringify'] ?? NaN;
  return [{ benchmark: 'messageText', case: '10,000 messages', value: fmtMs(value), baseline: `JSON.stringify ${fmtMs(baseline)}`, ratio: fmtRatio(value / baseline) }];
}
