import { describe, expect, it } from 'vitest';
import { parseContextLengthError } from '../../src/core';

// Message texts as the APIs returned them (quoted in public bug reports).
describe('parseContextLengthError', () => {
  it('reads Anthropic’s "prompt is too long"', () => {
    expect(parseContextLengthError('prompt is too long: 215098 tokens > 200000 maximum')).toEqual({ promptTokens: 215_098, limit: 200_000 });
    const wrapped =
      'litellm.ContextWindowExceededError: AnthropicException - {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 1048576 tokens > 1000000 maximum"}}';
    expect(parseContextLengthError(wrapped)).toEqual({ promptTokens: 1_048_576, limit: 1_000_000 });
  });

  it('reads Anthropic’s input + max_tokens overflow, keeping the output reserve apart', () => {
    const message = 'input length and `max_tokens` exceed context limit: 188240 + 21333 > 200000, decrease input length or `max_tokens` and try again';
    expect(parseContextLengthError(message)).toEqual({ promptTokens: 188_240, limit: 200_000, requestedOutputTokens: 21_333 });
    expect(
      parseContextLengthError('input length and max_tokens exceed context limit: 90402 + 116650 > 204648, decrease input length or max_tokens and try again'),
    ).toEqual({
      promptTokens: 90_402,
      limit: 204_648,
      requestedOutputTokens: 116_650,
    });
  });

  it('reads OpenAI’s "maximum context length" with "your messages resulted in"', () => {
    const message =
      "This model's maximum context length is 128000 tokens. However, your messages resulted in 204308 tokens. Please reduce the length of the messages.";
    expect(parseContextLengthError(message)).toEqual({ promptTokens: 204_308, limit: 128_000 });
    const withFunctions =
      "Error code: 400 - {'error': {'message': \"This model's maximum context length is 128000 tokens. However, your messages resulted in 202868 tokens (202767 in the messages, 101 in the functions). Please reduce the length of the messages or functions.\", 'type': 'invalid_request_error', 'param': 'messages', 'code': 'context_length_exceeded'}}";
    expect(parseContextLengthError(withFunctions)).toEqual({ promptTokens: 202_868, limit: 128_000 });
  });

  it('reads the "you requested N tokens (M in the messages, K in the completion)" form, prompt = messages', () => {
    const message =
      "This model's maximum context length is 131072 tokens. However, you requested 139162 tokens (130970 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.";
    expect(parseContextLengthError(message)).toEqual({ promptTokens: 130_970, limit: 131_072, requestedOutputTokens: 8_192 });
  });

  it('reads OpenAI’s configured input limit', () => {
    const message =
      '400 Input tokens exceed the configured limit of 272000 tokens. Your messages resulted in 289650 tokens. Please reduce the length of the messages.';
    expect(parseContextLengthError(message)).toEqual({ promptTokens: 289_650, limit: 272_000 });
  });

  it('reads vLLM’s and llama.cpp’s variants', () => {
    expect(
      parseContextLengthError(
        "This model's maximum context length is 32768 tokens. However, your request has 40001 input tokens. Please reduce the length of the input messages.",
      ),
    ).toEqual({
      promptTokens: 40_001,
      limit: 32_768,
    });
    expect(parseContextLengthError('request (8300 tokens) exceeds the available context size (8192 tokens), try increasing it')).toEqual({
      promptTokens: 8_300,
      limit: 8_192,
    });
  });

  it('returns null for other errors and for overflow messages without counts', () => {
    expect(parseContextLengthError('Your input exceeds the context window of this model. Please adjust your input and try again.')).toBeNull();
    expect(parseContextLengthError('the request exceeds the available context size, try increasing it')).toBeNull();
    expect(parseContextLengthError('Overloaded')).toBeNull();
    expect(parseContextLengthError('')).toBeNull();
  });
});
