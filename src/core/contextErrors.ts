// The APIs count the prompt exactly when they refuse it, and say the count in the error
// message. Parsing it lets the caller tighten calibration to the real number and plan
// again, instead of guessing how much to cut.

/** What a context-length error reveals, in tokens. */
export interface ContextOverflow {
  /** Input tokens the provider counted for the refused request. */
  promptTokens: number;
  /** The limit it was checked against (the context window, or the input cap). */
  limit: number;
  /** Output tokens the request reserved, when the message says (`max_tokens`). */
  requestedOutputTokens?: number;
}

const NUMBER = String.raw`(\d[\d,]*)`;

function toInt(text: string | undefined): number {
  return text === undefined ? NaN : Number(text.replace(/,/g, ''));
}

interface Pattern {
  regex: RegExp;
  read(match: RegExpExecArray): ContextOverflow;
}

const PATTERNS: Pattern[] = [
  {
    // Anthropic: "prompt is too long: 215098 tokens > 200000 maximum"
    regex: new RegExp(String.raw`prompt is too long:\s*${NUMBER}\s*tokens?\s*>\s*${NUMBER}\s*maximum`, 'i'),
    read: (m) => ({ promptTokens: toInt(m[1]), limit: toInt(m[2]) }),
  },
  {
    // Anthropic: "input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, ..."
    regex: new RegExp(String.raw`input length and \W*max_tokens\W* exceed context limit:\s*${NUMBER}\s*\+\s*${NUMBER}\s*>\s*${NUMBER}`, 'i'),
    read: (m) => ({ promptTokens: toInt(m[1]), limit: toInt(m[3]), requestedOutputTokens: toInt(m[2]) }),
  },
  {
    // OpenAI (GPT-5 era): "Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 289650 tokens."
    regex: new RegExp(String.raw`exceed the configured limit of\s*${NUMBER}\s*tokens\.?\s*Your messages resulted in\s*${NUMBER}\s*tokens`, 'i'),
    read: (m) => ({ promptTokens: toInt(m[2]), limit: toInt(m[1]) }),
  },
  {
    // OpenAI and vLLM: "This model's maximum context length is 128000 tokens. However, you requested
    // 139162 tokens (130970 in the messages, 8192 in the completion)." Also with "N in the functions".
    regex: new RegExp(
      String.raw`maximum context length is\s*${NUMBER}\s*tokens[\s\S]*?requested\s*${NUMBER}\s*tokens\s*\(\s*${NUMBER}\s*in the messages(?:,\s*${NUMBER}\s*in the functions)?,\s*${NUMBER}\s*in the completion`,
      'i',
    ),
    read: (m) => ({
      promptTokens: toInt(m[3]) + (m[4] === undefined ? 0 : toInt(m[4])),
      limit: toInt(m[1]),
      requestedOutputTokens: toInt(m[5]),
    }),
  },
  {
    // OpenAI: "This model's maximum context length is 128000 tokens. However, your messages resulted in
    // 130000 tokens. Please reduce the length of the messages." (optionally "(N in the messages, M in the functions)")
    regex: new RegExp(
      String.raw`maximum context length is\s*${NUMBER}\s*tokens[\s\S]*?(?:messages resulted in|request has)\s*${NUMBER}\s*(?:input\s+)?tokens`,
      'i',
    ),
    read: (m) => ({ promptTokens: toInt(m[2]), limit: toInt(m[1]) }),
  },
  {
    // llama.cpp server: "request (8300 tokens) exceeds the available context size (8192 tokens)"
    regex: new RegExp(String.raw`request\s*\(\s*${NUMBER}\s*tokens\s*\)\s*exceeds the available context size\s*\(\s*${NUMBER}\s*tokens`, 'i'),
    read: (m) => ({ promptTokens: toInt(m[1]), limit: toInt(m[2]) }),
  },
];

/**
 * Reads a provider's context-length error message (Anthropic, OpenAI, and the
 * OpenAI-compatible servers vLLM and llama.cpp). Returns null when the message is not a
 * context-length error or carries no counts (e.g. "Your input exceeds the context window
 * of this model"), so the caller knows it must cut without a number.
 */
export function parseContextLengthError(message: string): ContextOverflow | null {
  for (const { regex, read } of PATTERNS) {
    const match = regex.exec(message);
    if (!match) continue;
    const overflow = read(match);
    if (!Number.isFinite(overflow.promptTokens) || !Number.isFinite(overflow.limit) || overflow.promptTokens <= 0 || overflow.limit <= 0) continue;
    if (overflow.requestedOutputTokens !== undefined && !Number.isFinite(overflow.requestedOutputTokens)) delete overflow.requestedOutputTokens;
    return overflow;
  }
  return null;
}
