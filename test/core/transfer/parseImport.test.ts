import { describe, expect, it } from 'vitest';
import { MAX_IMPORT_BYTES, checkImportSize, detectImportFormat, exportToJson, parseImport, type ImportFailure } from '../../../src/core';
import { brokenFixtures, readFixture } from './fixtures';

const options = { importedAt: 1_767_225_600_000 };

function failure(text: string, sizeBytes?: number): ImportFailure {
  const result = parseImport(text, { ...options, sizeBytes });
  if (result.ok) throw new Error(`expected a failure, got ${result.value.conversations.length} conversations`);
  return result.error;
}

/** What each file of the broken corpus must say: the cause in words a user understands. */
const EXPECTED: Record<string, RegExp> = {
  'chatgpt-mapping-not-object.json': /ChatGPT export could not be read.*conversation 1\.mapping should be an object, but is text "node-1,node-2"/,
  'chatgpt-parent-loop.json': /ChatGPT export could not be read.*no starting message \(its messages form a loop\)/,
  'chatgpt-role-not-text.json': /conversation 1\.mapping\["n1"\]\.message\.author\.role should be text, but is a number \(42\)/,
  'chatgpt-time-as-text.json': /conversation 1\.create_time should be a number, but is text "yesterday"/,
  'claude-date-not-a-date.json': /Claude export could not be read.*conversation 1\.created_at should be an ISO-8601 date, but is text "the fourth of March"/,
  'claude-messages-not-list.json': /conversation 1\.chat_messages should be a list, but is an object/,
  'claude-sender-not-text.json': /conversation 1\.chat_messages\[0\]\.sender should be text, but is a number \(1\)/,
  'empty-array.json': /contains no conversations/,
  'empty.json': /The file is empty/,
  'nested-garbage.json': /Windowpane export is damaged.*conversations\[0\] should be an object, but is a list/,
  'not-json.txt': /not valid JSON.*may be truncated or not an export/,
  'null.json': /isn't a format Windowpane can import/,
  'whitespace.json': /The file is empty/,
  'windowpane-content-not-list.json': /conversations\[0\]\.messages\[0\]\.content should be a list, but is text "hi"/,
  'windowpane-duplicate-conversation.json': /conversation id "c1" appears twice/,
  'windowpane-message-elsewhere.json': /messages\[0\]\.conversationId should be "c1" \(its conversation's id\), but is text "c2"/,
  'windowpane-newer-version.json': /newer Windowpane \(format version 7\).*Update Windowpane/,
  'windowpane-role-system.json': /messages\[0\]\.role should be "user" or "assistant", but is text "system"/,
  'wrong-format.json': /isn't a format Windowpane can import.*ChatGPT or Claude/,
};

describe('parseImport: the broken-file corpus', () => {
  const corpus = brokenFixtures();

  it('has an expectation for every file', () => {
    expect(corpus.map((f) => f.name)).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const { name, text } of corpus) {
    it(`rejects ${name} with a clear message`, () => {
      const error = failure(text);
      expect(error.code).toBe('import_invalid');
      expect(error.message).toMatch(EXPECTED[name]!);
    });
  }

  it('rejects every truncation of a valid export as not valid JSON', () => {
    for (const name of ['chatgpt-conversations.json', 'claude-conversations.json']) {
      const text = readFixture(name).trimEnd();
      for (let end = 1; end < text.length; end += 97) {
        expect(failure(text.slice(0, end)).message, `${name} cut at ${end}`).toMatch(/not valid JSON/);
      }
    }
  });

  it('rejects a file over the limit by its size, before parsing it', () => {
    const error = failure('this text is never parsed', MAX_IMPORT_BYTES + 1);
    expect(error.code).toBe('import_too_large');
    expect(error.message).toMatch(/This file is 200 MB; Windowpane imports files up to 200 MB/);
    expect(checkImportSize(312 * 1024 * 1024)?.message).toMatch(/^This file is 312 MB/);
    expect(checkImportSize(MAX_IMPORT_BYTES)).toBeUndefined();
  });

  it('rejects nesting far deeper than any export, without overflowing the stack', () => {
    const deep = '['.repeat(100_000) + ']'.repeat(100_000);
    // Refused on the text, before JSON.parse or any reader recurses.
    expect(failure(deep).message).toMatch(/nests its data more than 200 levels deep/);
    // Built as text: JSON.stringify itself cannot write nesting this deep.
    const message =
      '{"id":"m","conversationId":"c","seq":0,"role":"assistant","kind":"message","createdAt":0,"status":"complete",' +
      `"content":[{"type":"tool_use","id":"t","name":"x","input":${'['.repeat(100)}${']'.repeat(100)}}]}`;
    const deepInput =
      '{"format":"windowpane","version":1,"exportedAt":0,"conversations":[{"conversation":' +
      `{"id":"c","title":"t","createdAt":0,"updatedAt":0,"messageCount":1},"messages":[${message}]}]}`;
    expect(failure(deepInput).message).toMatch(/content\[0\]\.input is nested more than 64 levels deep/);
  });

  it('reads text only: a zip archive (unpacked before it gets here) is not JSON', () => {
    expect(failure('PK\u0003\u0004\u0014\u0000binary').message).toMatch(/not valid JSON/);
  });

  it('lists a conversation twice in a ChatGPT export as an error, not a silent overwrite', () => {
    const one = JSON.parse(readFixture('chatgpt-conversations.json'))[1];
    expect(failure(JSON.stringify([one, one])).message).toMatch(/lists the conversation "Untitled conversation" twice/);
  });
});

describe('detectImportFormat', () => {
  it('tells the three formats apart', () => {
    expect(detectImportFormat(JSON.parse(exportToJson([], 0)))).toBe('windowpane');
    expect(detectImportFormat(JSON.parse(readFixture('chatgpt-conversations.json')))).toBe('chatgpt');
    expect(detectImportFormat(JSON.parse(readFixture('claude-conversations.json')))).toBe('claude');
    expect(detectImportFormat({ messages: [] })).toBeUndefined();
  });

  it('accepts a UTF-8 byte-order mark before the JSON', () => {
    expect(parseImport(`\ufeff${readFixture('claude-conversations.json')}`, options).ok).toBe(true);
  });
});
