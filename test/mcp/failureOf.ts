import { expect } from 'vitest';
import { McpFailure } from '../../src/mcp/failures';

/** The McpFailure `promise` rejects with (the test fails if it resolves or rejects with anything else). */
export async function failureOf(promise: Promise<unknown>): Promise<McpFailure> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpFailure);
  return error as McpFailure;
}
