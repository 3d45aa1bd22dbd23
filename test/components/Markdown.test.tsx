import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import Markdown from '../../src/components/Markdown';
import { MessageView } from '../../src/components/MessageView';
import type { StoredMessage } from '../../src/core';
import { XSS_CORPUS, hazards } from '../security/xssCorpus';

describe('Markdown renders a corpus of XSS payloads inert', () => {
  it.each(Object.entries(XSS_CORPUS))('%s', (_name, payload) => {
    const { container } = render(<Markdown text={payload} />);
    expect(hazards(container)).toEqual([]);
  });

  it('the corpus check itself catches a live payload', () => {
    // Guards the guard: if `hazards` stopped seeing these, every case above would pass vacuously.
    const live = document.createElement('div');
    live.innerHTML = '<a href=" java\tscript:alert(1)">x</a><img src="x" onerror="alert(1)"><iframe></iframe>';
    expect(hazards(live)).toEqual(['<iframe> element', '<img> element', 'href=" java\tscript:alert(1)" on <a>', 'onerror on <img>']);
  });

  it('prints raw HTML as text instead of interpreting it', () => {
    const { container } = render(<Markdown text={'before <b onclick="x()">bold</b> after'} />);
    expect(container.querySelector('b')).toBeNull();
    expect(container).toHaveTextContent('before <b onclick="x()">bold</b> after');
  });

  it('keeps a dangerous link’s text but not its target', () => {
    render(<Markdown text="[click me](javascript:alert(1))" />);
    expect(screen.queryByRole('link')).not.toBeInTheDocument();
    expect(screen.getByText('click me')).toBeInTheDocument();
  });

  it('keeps safe links, opened in a new tab without access to this one', () => {
    render(<Markdown text="See [the docs](https://docs.example.com/a?b=1)." />);
    const link = screen.getByRole('link', { name: 'the docs' });
    expect(link).toHaveAttribute('href', 'https://docs.example.com/a?b=1');
    expect(link).toHaveAttribute('target', '_blank');
    expect(link.getAttribute('rel')?.split(' ')).toEqual(expect.arrayContaining(['noopener', 'noreferrer']));
  });

  it('does not load images from anywhere (no tracking pixels), showing their alt text', () => {
    const { container } = render(<Markdown text="![a chart](https://tracker.example.com/p.gif)" />);
    expect(container.querySelector('img')).toBeNull();
    expect(container).toHaveTextContent('[image: a chart]');
  });

  it('renders the whole corpus inert inside an assistant message too', async () => {
    const text = Object.values(XSS_CORPUS).join('\n\n');
    const answer: StoredMessage = {
      id: 'a1',
      conversationId: 'c',
      seq: 1,
      role: 'assistant',
      kind: 'message',
      content: [{ type: 'text', text }],
      createdAt: 0,
      status: 'complete',
    };
    render(<MessageView message={answer} />);
    const article = screen.getByRole('article', { name: 'Assistant message' });
    // The lazily loaded renderer has replaced the plain-text fallback once code blocks have copy buttons.
    await within(article).findAllByRole('button', { name: 'Copy code' });
    expect(hazards(article)).toEqual([]);
  });
});
