import { describe, expect, it } from 'vitest';
import { ConfigError, WindowpaneError, isWindowpaneError, messageText } from '../../src/core';

describe('errors', () => {
  it('carries a code and names the offending field', () => {
    const error = new ConfigError('max_messages', 'max_messages must be a whole number ≥ 0, got -1');
    expect(error).toBeInstanceOf(WindowpaneError);
    expect(error.code).toBe('invalid_config');
    expect(error.field).toBe('max_messages');
    expect(isWindowpaneError(error, 'invalid_config')).toBe(true);
    expect(isWindowpaneError(error, 'auth')).toBe(false);
    expect(isWindowpaneError(new Error('plain'))).toBe(false);
  });
});

describe('messageText', () => {
  it('joins text blocks and ignores tool calls', () => {
    expect(
      messageText({
        content: [
          { type: 'text', text: 'Reading the file.' },
          { type: 'tool_use', id: 'toolu_1', name: 'read', input: { path: 'a.ts' } },
          { type: 'text', text: 'Done.' },
        ],
      }),
    ).toBe('Reading the file.\nDone.');
  });
});
