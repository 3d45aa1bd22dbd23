/**
 * Markdown export: a transcript a person can read anywhere, of the branch the user has
 * open (a transcript has one thread; a note under the title says how many other branches
 * there are). Summaries and trim markers are labelled blockquotes so they are never
 * mistaken for something the user or the model said; tool calls and results are shown as
 * fenced blocks. Not re-importable: the JSON export is the lossless one, every branch included.
 */
import { branchCount, branchMessages, buildTree } from '../branches';
import type { ContentBlock, StoredMessage } from '../conversation';
import { reasoningTokensOf, wholeCount } from '../conversation';
import { thinkingOf, thinkingSummary } from '../thinkingText';
import type { ConversationRecords } from './exportFormat';
import { fence, quote } from './markdownText';

/** How to annotate the transcript; the default marks nothing as trimmed. */
export interface MarkdownExportOptions {
  /**
   * Ids of messages the latest context plan did not send to the model. Each run of them
   * is preceded by a trim marker; nothing is left out of the transcript.
   */
  notSentIds?: ReadonlySet<string>;
  /**
   * Include each answer's thinking, as a collapsed `<details>` before its text. Off by
   * default: a transcript is what was said; the thinking is there when asked for. Redacted
   * thinking is then named, never its encrypted data.
   */
  includeThinking?: boolean;
}

const SOURCE_NAMES = { windowpane: 'Windowpane', chatgpt: 'ChatGPT', claude: 'Claude' } as const;

/**
 * The Markdown transcript of `entries` (one conversation or all, separated by rules): of
 * each, the branch ending at its `activeLeafId` (the newest when unset), in `seq` order,
 * with the summaries that belong to it; times are UTC. Only conversation and message
 * records are read, so settings and API keys cannot appear.
 */
export function exportToMarkdown(entries: readonly ConversationRecords[], options: MarkdownExportOptions = {}): string {
  return entries.map((entry) => conversationMarkdown(entry, options)).join('\n\n---\n\n') + '\n';
}

function conversationMarkdown({ conversation, messages }: ConversationRecords, options: MarkdownExportOptions): string {
  const tree = buildTree(messages);
  const ordered = branchMessages(tree, conversation.activeLeafId);
  const facts = [`${ordered.length} ${ordered.length === 1 ? 'message' : 'messages'}`];
  const created = formatTime(conversation.createdAt);
  if (created) facts.push(`created ${created}`);
  const updated = formatTime(conversation.updatedAt);
  if (updated) facts.push(`updated ${updated}`);
  if (conversation.source) facts.push(`imported from ${SOURCE_NAMES[conversation.source.kind]}`);

  const parts = [`# ${oneLine(conversation.title) || 'Untitled conversation'}`, `_${facts.join(' · ')}_`];
  const others = branchCount(tree) - 1;
  if (others > 0) {
    parts.push(`_This conversation has ${others} other ${others === 1 ? 'branch' : 'branches'}; the JSON export keeps every branch._`);
  }
  const notSent = options.notSentIds;
  for (let i = 0; i < ordered.length; i++) {
    const message = ordered[i]!;
    if (notSent?.has(message.id) && !notSent.has(ordered[i - 1]?.id ?? '')) {
      let run = 1;
      while (i + run < ordered.length && notSent.has(ordered[i + run]!.id)) run++;
      parts.push(
        `> ✂ **Trim marker:** the next ${run} ${run === 1 ? 'message was' : 'messages were'} not sent to the model ` +
          '(trimmed to fit the context window or budget); they are kept here and in storage.',
      );
    }
    parts.push(message.kind === 'summary' ? summaryMarkdown(message) : messageMarkdown(message, options.includeThinking === true));
  }
  return parts.join('\n\n');
}

function summaryMarkdown(message: StoredMessage): string {
  const covered = message.covers?.length ?? 0;
  const label = `**Conversation Summary (covers ${covered} ${covered === 1 ? 'message' : 'messages'})**`;
  const time = formatTime(message.createdAt);
  const body = blocksMarkdown(message.content);
  return quote(`${label}${time ? ` — ${time}` : ''}\n\n${body}`);
}

function messageMarkdown(message: StoredMessage, withThinking: boolean): string {
  const who = message.role === 'user' ? 'User' : 'Assistant';
  const heading = [message.model && message.role === 'assistant' ? `${who} · ${message.model}` : who];
  const time = formatTime(message.createdAt);
  if (time) heading.push(time);
  const lines = [`## ${heading.join(' — ')}`];
  const thinking = withThinking ? thinkingMarkdown(message) : '';
  if (thinking) lines.push(thinking);
  const body = blocksMarkdown(message.content);
  if (body) lines.push(body);
  const notes: string[] = [];
  if (message.pinned) notes.push('pinned (never trimmed)');
  if (message.status === 'interrupted') notes.push('interrupted: the tab closed while this answer was streaming');
  if (message.status === 'stopped') notes.push('stopped by the user');
  if (message.status === 'streaming') notes.push('still streaming when exported');
  if (message.status === 'error') notes.push(`error: ${oneLine(message.error?.message ?? 'the request failed')}`);
  if (message.usage) {
    const u = message.usage;
    const reasoning = reasoningTokensOf(u);
    notes.push(
      `tokens: ${u.inputTokens} in, ${u.outputTokens} out` +
        (reasoning ? ` (of which ${reasoning} reasoning)` : '') +
        (u.cacheReadTokens ? `, ${u.cacheReadTokens} cache read` : '') +
        (u.cacheWriteTokens ? `, ${u.cacheWriteTokens} cache write` : ''),
    );
  }
  if (notes.length) lines.push(`_${notes.join(' · ')}_`);
  return lines.join('\n\n');
}

/**
 * A message's thinking as the transcript shows it: one collapsed section before the answer,
 * labelled with its length and time; redacted thinking is named, its data never written.
 */
function thinkingMarkdown(message: StoredMessage): string {
  const thinking = thinkingOf(message);
  if (thinking.text === '' && thinking.redacted === 0) return '';
  const label = thinkingSummary(thinking, wholeCount(message.thinkingMs));
  if (thinking.text === '') return `_${label}._`;
  return `<details>\n<summary>${label}</summary>\n\n${thinking.text}\n\n</details>`;
}

/** Every block but thinking, which `thinkingMarkdown` writes when asked. */
function blocksMarkdown(blocks: readonly ContentBlock[]): string {
  return blocks
    .map(blockMarkdown)
    .filter((text) => text !== '')
    .join('\n\n');
}

function blockMarkdown(block: ContentBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'tool_use':
      return `**Tool call:** \`${oneLine(block.name)}\` (id \`${oneLine(block.id)}\`)\n\n${fence(jsonText(block.input), 'json')}`;
    case 'tool_result':
      return [
        `**Tool result** for \`${oneLine(block.tool_use_id)}\`${block.is_error ? ' (error)' : ''}:\n\n` + fence(block.content, ''),
        ...(block.images ?? []).map(blockMarkdown),
      ].join('\n\n');
    case 'thinking':
    case 'redacted_thinking':
      return '';
    case 'image':
      // Named, never linked or embedded: the file stays in the browser (the JSON export can carry it).
      return `_Image: ${inlineCode(block.name)}, ${block.width}×${block.height} px_`;
    case 'document':
      return `_PDF: ${inlineCode(block.name)}, ${block.pages.toLocaleString('en-US')} page${block.pages === 1 ? '' : 's'}_`;
    case 'provider_tool':
      return (
        `**${providerName(block.provider)} called** \`${oneLine(block.name)}\` of the MCP server \`${oneLine(block.server)}\`${block.isError ? ' (error)' : ''}:\n\n` +
        `${fence(jsonText(block.input), 'json')}\n\n${fence(block.output, '')}`
      );
    case 'compaction':
      return block.summary === null
        ? `_${providerName(block.provider)} compacted the conversation before this point; its summary is encrypted, readable only by ${providerName(block.provider)}._`
        : `**${providerName(block.provider)}'s summary of the conversation before this point:**\n\n${fence(block.summary, '')}`;
  }
}

function providerName(provider: 'anthropic' | 'openai'): string {
  return provider === 'anthropic' ? 'Anthropic' : 'OpenAI';
}

/** `text` as one inline code span, so no Markdown inside it (a link, an image) is ever live. */
function inlineCode(text: string): string {
  const flat = oneLine(text) || 'unnamed';
  let longest = 0;
  for (const run of flat.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  const marks = '`'.repeat(longest + 1);
  return `${marks} ${flat} ${marks}`;
}

function jsonText(value: unknown): string {
  return value === undefined ? 'null' : JSON.stringify(value, null, 2);
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** `2026-01-31 14:05 UTC`, or '' for a time that is not a valid epoch-ms value. */
function formatTime(epochMs: number): string {
  if (!Number.isFinite(epochMs) || Math.abs(epochMs) > 8.64e15) return '';
  return `${new Date(epochMs).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
