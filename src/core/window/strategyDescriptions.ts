/**
 * What each built-in strategy does, in one paragraph, for the strategy picker in Settings (see
 * docs/strategies.md). Apart from the strategies themselves so the first screen, which plans
 * with them, does not carry the text.
 */
export const STRATEGY_DESCRIPTIONS: Readonly<Record<string, string>> = {
  off: 'Sends the whole conversation. Nothing is trimmed; a request that no longer fits the window is flagged.',
  provider:
    'Sends the conversation from the provider’s latest compaction on, and asks the provider to compact once a request passes its trigger. Windowpane trims only what would not fit the window. Where the model cannot compact (compatible servers, the Demo, some Anthropic models), it plans as Auto.',
  count:
    'Message-count window: above max_messages (100) keep the first 1, the last 20 and the newest of the middle; tool exchanges stay whole; optional summary of what was evicted (off by default).',
  rolling: 'Rolling window: keeps the last 50 messages, dropping the oldest; incoming history capped at 1,000.',
  truncate:
    'Token-ratio truncation: above 80 % of the context window, keeps the first user message and the newest messages that fit 70 %, with a "[N earlier messages truncated to fit context window]" marker.',
  summarize:
    'Summarizing truncation: above 80 % of the window or 100 messages, keeps the goal and the newest messages; the evicted ones become one "[Conversation Summary]" (extended incrementally, at most once per 10 evicted, marker on failure).',
  'two-tier':
    'Two-tier summarization: above 80k tokens keeps the last 8 messages and a heuristic summary (tools, files, commands; no AI call); above 120k an AI summary with a six-part prompt, cached.',
  auto: 'Default: trims when the request passes min(80 % of the window, your budget) minus the answer reserve, or 100 messages, down to 60 % — first clearing old tool results (the newest 3 kept), then whole turns — so the sent prefix stays the same between trims and prompt caching keeps working. Keeps the goal, pinned and newest messages.',
};
