import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { utf8Bytes } from '../../src/core';

const encoded = (text: string) => new TextEncoder().encode(text).byteLength;

describe('utf8Bytes', () => {
  it('counts one to four bytes per character, as UTF-8 stores them', () => {
    expect(utf8Bytes('')).toBe(0);
    expect(utf8Bytes('abc')).toBe(3);
    expect(utf8Bytes('é')).toBe(2);
    expect(utf8Bytes('€')).toBe(3);
    expect(utf8Bytes('😀')).toBe(4);
  });

  it('counts a lone surrogate as the replacement character an encoder writes', () => {
    expect(utf8Bytes('\ud83d')).toBe(3);
    expect(utf8Bytes('\ud83dx')).toBe(4);
    expect(utf8Bytes('\ude00\ud83d')).toBe(6);
  });

  it('agrees with TextEncoder on any string', () => {
    fc.assert(fc.property(fc.string({ unit: 'binary' }), (text) => utf8Bytes(text) === encoded(text)));
  });
});
