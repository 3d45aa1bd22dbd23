import { describe, expect, it } from 'vitest';
import { isExportFile } from '../../src/store/exportFiles';

describe('files dropped on the window', () => {
  it('imports exports, by their name or type, and adds every other file to the next message', () => {
    const file = (name: string, type = '') => ({ name, type });
    for (const f of [file('conversations.json'), file('export.ZIP'), file('data', 'application/json'), file('x', 'application/x-zip-compressed')])
      expect(isExportFile(f)).toBe(true);
    for (const f of [file('photo.png', 'image/png'), file('paper.pdf', 'application/pdf'), file('notes.txt', 'text/plain'), file('archive.json.txt')])
      expect(isExportFile(f)).toBe(false);
  });
});
