import type { WindowMessage } from '../messages';

/**
 * Tokens one message costs in a request: its content plus its per-message format
 * overhead. A whole number ≥ 0. Structurally the same as the window's `TokenCounter`,
 * so any counter here can be handed to the planner without either importing the other.
 */
export type MessageTokenCounter = (message: WindowMessage) => number;
