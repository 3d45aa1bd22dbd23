// Every payload of the XSS corpus, through every place Windowpane shows text from outside:
// model output, user messages, conversation titles (list and header), attached file names,
// tool call arguments and output, error messages and notices, summaries. Each rendering
// must add nothing live beyond what the same component renders for harmless text.
import { render, waitFor, within, type RenderResult } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactElement } from 'react';
import { describe, expect, it } from 'vitest';
import { ChatHeader } from '../../src/components/ChatHeader';
import { Composer } from '../../src/components/Composer';
import { ConversationList } from '../../src/components/ConversationList';
import { MessageView } from '../../src/components/MessageView';
import { Notices } from '../../src/components/Notices';
import { SummaryMessage } from '../../src/components/SummaryMessage';
import { ToolCallView } from '../../src/components/ToolCallView';
import type { StoredMessage } from '../../src/core';
import { XSS_CORPUS, hazards } from './xssCorpus';

const message = (role: 'user' | 'assistant', text: string, extra: Partial<StoredMessage> = {}): StoredMessage => ({
  id: `${role}-1`,
  conversationId: 'c',
  seq: 1,
  role,
  kind: 'message',
  content: [{ type: 'text', text }],
  createdAt: 0,
  status: 'complete',
  ...extra,
});

/** Markdown loads lazily: the check runs on its rendering, not on the plain-text stand-in. */
async function markdownLoaded(view: RenderResult): Promise<void> {
  await waitFor(() => expect(view.container.querySelector('.markdown')).not.toBeNull());
}

/** Each place outside text is shown, as a function from the text to what renders it. */
const PLACES: Record<string, { render: (text: string) => ReactElement; open?: (view: RenderResult) => Promise<void> }> = {
  'model output': { render: (text) => <MessageView message={message('assistant', text)} />, open: markdownLoaded },
  'a user message': { render: (text) => <MessageView message={message('user', text)} /> },
  'a provider error on an answer': {
    render: (text) => <MessageView message={message('assistant', 'partial', { status: 'error', error: { code: 'provider', message: text } })} />,
  },
  'the model name on an answer': { render: (text) => <MessageView message={message('assistant', 'hi', { model: text })} /> },
  'a conversation title in the list': {
    render: (text) => (
      <ConversationList
        items={[{ id: 'c', title: text, updatedAt: 0 }]}
        query=""
        onQueryChange={() => {}}
        onNew={() => {}}
        onSelect={() => {}}
        onRename={() => {}}
        onDelete={() => {}}
      />
    ),
  },
  'a conversation title in the header': {
    render: (text) => <ChatHeader title={text} modelLabel="Model" isDemo={false} canExportActive onSettings={() => {}} onExport={() => {}} />,
  },
  'an attached file name': {
    render: (text) => (
      <Composer
        onSend={() => {}}
        attachments={[{ id: 'f', conversationId: 'c', name: text, size: 10, createdAt: 0 }]}
        onAttach={() => {}}
        onRemoveAttachment={() => {}}
      />
    ),
  },
  'tool call arguments and output': {
    render: (text) => (
      <ToolCallView
        call={{ type: 'tool_use', id: 't1', name: text.slice(0, 40), input: { code: text, path: text } }}
        result={{ block: { type: 'tool_result', tool_use_id: 't1', content: text }, cleared: false }}
      />
    ),
    // The row opens to its full arguments and output.
    open: async (view) => {
      for (const button of within(view.container).queryAllByRole('button', { expanded: false })) await userEvent.click(button);
    },
  },
  'a notice': { render: (text) => <Notices notices={[{ id: 'n', tone: 'error', text }]} onDismiss={() => {}} /> },
  'a summary': {
    render: (text) => <SummaryMessage message={{ ...message('assistant', `[Conversation Summary]\n${text}`), kind: 'summary', covers: ['m1'] }} />,
    open: markdownLoaded,
  },
};

async function renderedHazards(place: (typeof PLACES)[string], text: string): Promise<string[]> {
  const view = render(place.render(text));
  await place.open?.(view);
  const found = hazards(view.container);
  view.unmount();
  return found;
}

const cases = Object.keys(PLACES).flatMap((place) => Object.entries(XSS_CORPUS).map(([name, payload]) => [place, name, payload] as const));

describe('XSS payloads render inert wherever outside text is shown', () => {
  it('covers at least 50 payloads in every place', () => {
    expect(Object.keys(XSS_CORPUS).length).toBeGreaterThanOrEqual(50);
  });

  it.each(cases)('%s: %s', async (place, _name, payload) => {
    const baseline = await renderedHazards(PLACES[place]!, 'harmless text');
    const found = await renderedHazards(PLACES[place]!, payload);
    expect(found.filter((hazard) => !baseline.includes(hazard))).toEqual([]);
    expect((window as unknown as { __pwned?: unknown }).__pwned).toBeUndefined();
  });
});
