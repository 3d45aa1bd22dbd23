/**
 * The size of `text` in UTF-8, in bytes, counted without encoding it: what a file of this
 * text takes on disk, and what `TextEncoder` would produce (a lone surrogate counts as the
 * 3-byte replacement character it becomes).
 */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code < 0xdc00 && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4; // a surrogate pair: one code point beyond U+FFFF
      i++;
    } else bytes += 3;
  }
  return bytes;
}
