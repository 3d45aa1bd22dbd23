import { describe, expect, it } from 'vitest';
import { parseToolArguments, toolArgumentsText } from '../../../src/core';

describe('a tool call’s arguments are read one way', () => {
  it.each([
    [{ name: 'app.log' }, { name: 'app.log' }],
    ['{"name": "app.log", "start_line": 3}', { name: 'app.log', start_line: 3 }],
    ['', {}],
    ['  ', {}],
    [undefined, {}],
    [null, {}],
  ])('%j reads as an object of arguments', (input, args) => {
    expect(parseToolArguments(input)).toEqual({ ok: true, args });
  });

  it.each([
    ['{"name": "app.log"', 'not-json', 'text that is not JSON'],
    [['app.log'], 'not-object', 'an array'],
    ['[1]', 'not-object', 'an array'],
    ['"app.log"', 'not-object', 'string'],
    [42, 'not-object', 'number'],
    ['null', 'not-object', 'null'],
  ])('%j is refused as %s', (input, problem, found) => {
    expect(parseToolArguments(input)).toEqual({ ok: false, problem, found });
  });

  it('quotes the arguments as sent, cut where asked', () => {
    expect(toolArgumentsText('{"code": "1 +')).toBe('{"code": "1 +');
    expect(toolArgumentsText({ code: '1 + 1' })).toBe('{"code":"1 + 1"}');
    expect(toolArgumentsText(undefined)).toBe('{}');
    expect(toolArgumentsText({ name: 'abcdefgh' }, 5)).toBe('{"nam…');
  });
});
