// The APIs' rules for a request, as the tests' oracle: every plan and every request built
// from a conversation must pass them. The app keeps requests valid by construction (whole
// units, tool pairing checked on the history view); this checks what it built, with the
// same reading of each message (messageShape) the app uses.
import { WIRE_ROLES, collectPairingViolations, messageShape, type MessageShape, type RequestViolation, type WindowMessage } from '../../src/core';

/** `ok` when there is no violation; otherwise every violation, in message order. */
export interface RequestValidation {
  ok: boolean;
  violations: RequestViolation[];
}

/** Which API to check against, and whether the messages are a whole request or a slice of one. */
export interface ValidateRequestOptions {
  /** Narrows the accepted roles: Anthropic takes only `user` and `assistant`. Default: either API. */
  provider?: 'anthropic' | 'openai';
  /** Check a slice of a request: skip the whole-request rules (not empty, starts with a user message). */
  fragment?: boolean;
}

const ANTHROPIC_ROLES: readonly string[] = ['user', 'assistant'];

/** A user message that opens a turn: role `user` and not a carrier of tool results. */
export function isUserTurnStart(message: WindowMessage): boolean {
  const shape = messageShape(message);
  return shape.role === 'user' && !shape.toolResult;
}

/**
 * Reports every way `messages` would be rejected by the target API, in message order:
 * - tool pairing: each tool call (with a unique id) answered exactly once by the tool-result messages right
 *   after it (OpenAI: the consecutive `role:"tool"` messages; Anthropic: the very next
 *   message), and each result answering a call of the message just before its run;
 * - no empty content (tool outputs excepted; an assistant turn that only calls tools may
 *   have null content), tool blocks on the right role, tool_result blocks first;
 * - known roles; after any system messages, the first message is a user message
 *   (not a tool result); at least one non-system message.
 * Linear in the size of the messages; pure.
 */
export function validateRequest(messages: readonly WindowMessage[], options: ValidateRequestOptions = {}): RequestValidation {
  const violations: RequestViolation[] = [];
  const roles = options.provider === 'anthropic' ? ANTHROPIC_ROLES : WIRE_ROLES;
  const shapes = messages.map((message) => messageShape(message));
  let firstConversational = -1;
  for (let i = 0; i < shapes.length; i++) {
    const shape = shapes[i] as MessageShape;
    if (!roles.includes(shape.role)) {
      violations.push({ code: 'invalid-role', index: i, detail: `role "${shape.role}" is not accepted` });
    }
    if (shape.empty) violations.push({ code: 'empty-content', index: i, detail: 'content is empty' });
    if (shape.misplaced) violations.push({ code: 'misplaced-tool-block', index: i, detail: shape.misplaced });
    if (firstConversational < 0 && !shape.system) firstConversational = i;
  }
  collectPairingViolations(shapes, 0, shapes.length, violations);
  if (!options.fragment) {
    if (firstConversational < 0) {
      violations.push({ code: 'empty-request', index: -1, detail: 'no user or assistant message to send' });
    } else {
      if (!isUserTurnStart(messages[firstConversational] as WindowMessage)) {
        violations.push({
          code: 'first-not-user',
          index: firstConversational,
          detail: 'the first message after the system prompt must be a user message',
        });
      }
    }
  }
  violations.sort((a, b) => a.index - b.index);
  return { ok: violations.length === 0, violations };
}
