import { fireEvent, render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { Composer } from '../../src/components/Composer';
import { documentTokens, imageTokens } from '../../src/core';

describe('Composer', () => {
  it('sends the draft on Enter and clears the box', async () => {
    const onSend = vi.fn();
    render(<Composer onSend={onSend} />);
    const box = screen.getByRole('textbox', { name: 'Message' });
    await userEvent.type(box, 'Hello there{Enter}');
    expect(onSend).toHaveBeenCalledWith('Hello there');
    expect(box).toHaveValue('');
  });

  it('adds a line on Shift+Enter instead of sending', async () => {
    const onSend = vi.fn();
    render(<Composer onSend={onSend} />);
    const box = screen.getByRole('textbox', { name: 'Message' });
    await userEvent.type(box, 'one{Shift>}{Enter}{/Shift}two');
    expect(onSend).not.toHaveBeenCalled();
    expect(box).toHaveValue('one\ntwo');
  });

  it('keeps Send disabled until there is text', async () => {
    render(<Composer onSend={vi.fn()} />);
    const send = screen.getByRole('button', { name: 'Send' });
    expect(send).toBeDisabled();
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), '   ');
    expect(send).toBeDisabled();
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'x');
    expect(send).toBeEnabled();
  });

  it('shows a draft put back from outside, and what is typed after it', async () => {
    function Kept() {
      const [draft, setDraft] = useState('');
      return (
        <>
          <Composer onSend={() => true} draft={draft} onDraftChange={setDraft} />
          <button type="button" onClick={() => setDraft('Not sent')}>
            Put back
          </button>
        </>
      );
    }
    render(<Kept />);
    const box = screen.getByRole('textbox', { name: 'Message' });
    await userEvent.type(box, 'Hello{Enter}');
    expect(box).toHaveValue('');
    await userEvent.click(screen.getByRole('button', { name: 'Put back' }));
    expect(box).toHaveValue('Not sent');
    await userEvent.type(box, '!');
    expect(box).toHaveValue('Not sent!');
  });

  it('says when it is focused', async () => {
    const onFocus = vi.fn();
    render(<Composer onSend={vi.fn()} onFocus={onFocus} />);
    await userEvent.click(screen.getByRole('textbox', { name: 'Message' }));
    expect(onFocus).toHaveBeenCalledTimes(1);
  });
});

describe('Composer: attachments', () => {
  const chips = [
    { id: 'a1', conversationId: 'c1', name: 'app.log', size: 18_432, createdAt: 1 },
    { id: 'a2', conversationId: 'c1', name: 'data.csv', size: 812, createdAt: 2 },
  ];

  it('offers "Attach files", which opens the file picker for several files', async () => {
    const onAttach = vi.fn();
    render(<Composer onSend={vi.fn()} onAttach={onAttach} />);
    const picker = screen.getByLabelText<HTMLInputElement>('Files to attach');
    expect(picker).toHaveAttribute('type', 'file');
    expect(picker.multiple).toBe(true);
    const opened = vi.spyOn(picker, 'click');
    await userEvent.click(screen.getByRole('button', { name: 'Attach files' }));
    expect(opened).toHaveBeenCalledOnce();

    const file = new File(['hello'], 'notes.md', { type: 'text/markdown' });
    await userEvent.upload(picker, file);
    expect(onAttach).toHaveBeenCalledWith([file]);
  });

  it('offers no attaching where it is not wired', () => {
    render(<Composer onSend={vi.fn()} />);
    expect(screen.queryByRole('button', { name: 'Attach files' })).not.toBeInTheDocument();
  });

  it('takes files dropped on it, but not dragged text', () => {
    const onAttach = vi.fn();
    render(<Composer onSend={vi.fn()} onAttach={onAttach} />);
    const composer = screen.getByRole('textbox', { name: 'Message' }).closest('form')!;
    const files = [new File(['a'], 'a.txt'), new File(['b'], 'b.log')];
    fireEvent.dragOver(composer, { dataTransfer: { types: ['Files'], files } });
    expect(composer).toHaveClass('composer-dragging');
    fireEvent.drop(composer, { dataTransfer: { types: ['Files'], files } });
    expect(onAttach).toHaveBeenCalledWith(files);
    expect(composer).not.toHaveClass('composer-dragging');

    fireEvent.drop(composer, { dataTransfer: { types: ['text/plain'], files: [] } });
    expect(onAttach).toHaveBeenCalledTimes(1);
  });

  it('shows attached files as chips with name and size, each with its own Remove button', async () => {
    const onRemove = vi.fn();
    render(<Composer onSend={vi.fn()} onAttach={vi.fn()} attachments={chips} onRemoveAttachment={onRemove} />);
    const list = screen.getByRole('list', { name: 'Attached files' });
    const items = within(list).getAllByRole('listitem');
    expect(items.map((item) => item.textContent)).toEqual(['app.log18 KB×', 'data.csv812 B×']);
    await userEvent.click(screen.getByRole('button', { name: 'Remove data.csv' }));
    expect(onRemove).toHaveBeenCalledWith('a2');
  });

  it('keeps the typed message while files are attached', async () => {
    const onSend = vi.fn();
    const { rerender } = render(<Composer onSend={onSend} onAttach={vi.fn()} />);
    await userEvent.type(screen.getByRole('textbox', { name: 'Message' }), 'What failed?');
    rerender(<Composer onSend={onSend} onAttach={vi.fn()} attachments={chips} />);
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveValue('What failed?');
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(onSend).toHaveBeenCalledWith('What failed?');
  });

  describe('images', () => {
    const shot = {
      id: 'i1',
      name: 'screen.png',
      mediaType: 'image/png',
      blob: new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], { type: 'image/png' }),
      width: 2576,
      height: 1449,
      bytes: 1_400_000,
      original: { width: 3840, height: 2160, bytes: 6_400_000 },
    };

    it('takes images pasted into the box, and only them', () => {
      const onPasteImages = vi.fn();
      render(<Composer onSend={vi.fn()} onPasteImages={onPasteImages} />);
      const image = new File(['x'], 'image.png', { type: 'image/png' });
      const notImage = new File(['y'], 'notes.txt', { type: 'text/plain' });
      fireEvent.paste(screen.getByRole('textbox', { name: 'Message' }), { clipboardData: { files: [image, notImage] } });
      expect(onPasteImages).toHaveBeenCalledWith([image]);
      onPasteImages.mockClear();
      fireEvent.paste(screen.getByRole('textbox', { name: 'Message' }), { clipboardData: { files: [] } });
      expect(onPasteImages).not.toHaveBeenCalled();
    });

    it('shows each image with its size, pixels, estimated tokens and what it was scaled from, removable', async () => {
      const onRemoveImage = vi.fn();
      render(<Composer onSend={vi.fn()} images={[shot]} imagePricing={{ shape: 'anthropic', model: 'claude-opus-5-5' }} onRemoveImage={onRemoveImage} />);
      const chip = within(screen.getByRole('list', { name: 'Images to send' })).getByRole('listitem');
      expect(within(chip).getByRole('img', { name: 'screen.png' })).toBeInTheDocument();
      expect(chip).toHaveTextContent(`2576×1449 · 1.3 MB · ≈${imageTokens('anthropic', 2576, 1449, 'claude-opus-5-5').toLocaleString('en-US')} tokens`);
      expect(chip).toHaveTextContent('scaled down from 3840×2160, 6.1 MB');
      await userEvent.click(within(chip).getByRole('button', { name: 'Remove screen.png' }));
      expect(onRemoveImage).toHaveBeenCalledWith('i1');
    });

    it('sends an image without any text', async () => {
      const onSend = vi.fn();
      render(<Composer onSend={onSend} images={[shot]} />);
      await userEvent.click(screen.getByRole('button', { name: 'Send' }));
      expect(onSend).toHaveBeenCalledWith('');
    });
  });

  describe('PDFs', () => {
    const report = {
      id: 'p1',
      name: 'report.pdf',
      blob: new Blob(['%PDF-1.7'], { type: 'application/pdf' }),
      bytes: 84_000,
      pages: 12,
      pageTexts: Array.from({ length: 12 }, () => 'text'),
      pageTokens: Array.from({ length: 12 }, () => 300),
    };

    it('shows a PDF as a chip with its name, pages, size and estimated tokens, removable', async () => {
      const onRemovePdf = vi.fn();
      render(<Composer onSend={vi.fn()} pdfs={[report]} imagePricing={{ shape: 'anthropic', model: 'claude-opus-5-5' }} onRemovePdf={onRemovePdf} />);
      const chip = within(screen.getByRole('list', { name: 'PDFs to send' })).getByRole('listitem');
      expect(chip).toHaveTextContent('report.pdf');
      const tokens = documentTokens('anthropic', report, 'file', 'claude-opus-5-5');
      expect(chip).toHaveTextContent(`12 pages · 82 KB · ≈${tokens.toLocaleString('en-US')} tokens`);
      await userEvent.click(within(chip).getByRole('button', { name: 'Remove report.pdf' }));
      expect(onRemovePdf).toHaveBeenCalledWith('p1');
    });

    it('says when the model gets the text instead of the file, counting the text alone', () => {
      render(<Composer onSend={vi.fn()} pdfs={[report]} imagePricing={{ shape: 'openai', model: 'llama3', pdfAs: 'text' }} />);
      expect(screen.getByRole('list', { name: 'PDFs to send' })).toHaveTextContent('≈3,600 tokens · sent as text: this model takes no PDFs');
    });

    it('takes PDFs pasted into the box, and sends a PDF without any text', async () => {
      const onPaste = vi.fn();
      const onSend = vi.fn();
      render(<Composer onSend={onSend} onPasteImages={onPaste} pdfs={[report]} />);
      const pdf = new File(['%PDF-'], 'paper.pdf', { type: 'application/pdf' });
      fireEvent.paste(screen.getByRole('textbox', { name: 'Message' }), { clipboardData: { files: [pdf] } });
      expect(onPaste).toHaveBeenCalledWith([pdf]);
      await userEvent.click(screen.getByRole('button', { name: 'Send' }));
      expect(onSend).toHaveBeenCalledWith('');
    });
  });
});
