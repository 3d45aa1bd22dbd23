/** A Responses API request as the fake read it: what its checks, answers and compaction work from. */
type Json = Record<string, unknown>;

export interface ResponsesRequest {
  body: Json;
  model: string;
  instructions: string | null;
  maxTokens: number | null;
  stream: boolean;
  store: boolean;
  /** The effort the model reasons at: the request's, else the model's default; `none` when it does not reason. */
  effort: string;
  /** `reasoning.summary`, or null when no summary was asked. */
  summary: string | null;
  includeEncrypted: boolean;
  tokens: number[];
  /** How many of `tokens` are the tools and instructions: what stays when the input is compacted. */
  fixedTokens: number;
  inputTokens: number;
  /** The summary of the newest compaction item the input sends back (what the model reads in place of everything before it). */
  compactedFrom?: string;
  systemText: string;
  lastUserText: string;
  answersToolResults: boolean;
  /** The function tools offered, in the Responses shape. */
  tools: Json[];
  toolNames: string[];
  callableTools: string[];
  messageCount: number;
}
