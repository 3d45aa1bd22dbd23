import { describe, expect, it } from 'vitest';
import { foldText, searchSnippet, searchTerms, searchTokens, searchWords } from '../../src/core';

describe('foldText', () => {
  it('folds case, accents and compatibility forms', () => {
    expect(foldText('Crème Brûlée')).toBe('creme brulee');
    expect(foldText('ÉCOLE Ñandú Zürich')).toBe('ecole nandu zurich');
    expect(foldText('ﬁle Ａpp')).toBe('file app');
    expect(foldText('東京')).toBe('東京');
  });
});

describe('searchTerms with Intl.Segmenter', () => {
  it('finds the words of an accented French sentence, folded', () => {
    expect(searchTerms('Crème brûlée, s’il vous plaît!')).toEqual(['creme', 'brulee', 's', 'il', 'vous', 'plait']);
  });

  it('cuts code and file names at punctuation the segmenter keeps inside a word', () => {
    expect(searchWords('See ctx.shadowColor in app_config.ts')).toEqual([
      { word: 'See', index: 0 },
      { word: 'ctx', index: 4 },
      { word: 'shadowColor', index: 8 },
      { word: 'in', index: 20 },
      { word: 'app', index: 23 },
      { word: 'config', index: 27 },
      { word: 'ts', index: 34 },
    ]);
  });

  it('cuts Japanese, Chinese and Korean into words', () => {
    expect(searchTerms('東京都に住んでいます。')).toContain('東京');
    expect(searchTerms('我们明天去北京看长城。')).toEqual(expect.arrayContaining(['北京', '长城', '明天']));
    expect(searchTerms('서울에서 친구를 만났어요.')).toEqual(['서울에서', '친구를', '만났어요']);
  });

  it('gives each word its place in the text', () => {
    expect(searchWords('Hi, Zoë!')).toEqual([
      { word: 'Hi', index: 0 },
      { word: 'Zoë', index: 4 },
    ]);
  });
});

describe('searchTerms without a segmenter', () => {
  it('splits on anything but letters, digits and marks', () => {
    expect(searchTerms('Crème brûlée, s’il vous plaît!', null)).toEqual(['creme', 'brulee', 's', 'il', 'vous', 'plait']);
  });

  it('indexes runs of unspaced scripts as bigrams, keeping spaced words whole', () => {
    expect(searchTerms('東京都に住む', null)).toEqual(['東京', '京都', '都に', 'に住', '住む']);
    expect(searchTerms('我们去北京', null)).toEqual(['我们', '们去', '去北', '北京']);
    expect(searchTerms('Tokyo東京 x', null)).toEqual(['tokyo', '東京', 'x']);
    expect(searchTerms('서울 맛집', null)).toEqual(['서울', '맛집']);
    expect(searchTerms('京', null)).toEqual(['京']);
  });
});

describe('searchSnippet', () => {
  it('marks the first word that begins with a term, in the text as written', () => {
    const s = searchSnippet('We ordered a Crème brûlée\n\nand coffee.', ['bru']);
    expect(s.snippet).toBe('We ordered a Crème brûlée and coffee.');
    expect(s.snippet.slice(s.matchStart, s.matchStart! + s.matchLength!)).toBe('brû');
  });

  it('cuts a long text around the match and keeps the range right after the ellipsis', () => {
    const s = searchSnippet(`${'a'.repeat(300)} needle ${'b'.repeat(300)}`, ['needle']);
    expect(s.snippet).toBe(`…${'a'.repeat(39)} needle ${'b'.repeat(113)}…`);
    expect(s.snippet.slice(s.matchStart, s.matchStart! + s.matchLength!)).toBe('needle');
  });

  it('finds Japanese words', () => {
    const s = searchSnippet('明日は東京都に行きます', ['東京']);
    expect(s.snippet.slice(s.matchStart, s.matchStart! + s.matchLength!)).toBe('東京');
  });

  it('gives the start of the text without a range when no word matches', () => {
    expect(searchSnippet('Nothing here', ['zebra'])).toEqual({ snippet: 'Nothing here' });
  });
});

describe('searchTokens', () => {
  it('gives the same words as searchWords, with or without unspaced scripts', () => {
    for (const text of ['Crème brûlée, s’il vous plaît! app_config.ts', '東京都に住んでいます。Tokyo 2026', '서울에서 친구를 만났어요.']) {
      expect(searchTokens(text)).toEqual(searchWords(text).map((w) => w.word));
    }
  });
});
