// planContext on 10,000 messages of an agent conversation (Anthropic wire shape, one turn
// in three reads a file through a tool; text from the corpus, see conversations.ts) with
// the app's default policy and a 200k-token model from the registry, against one
// JSON.stringify pass over the same messages: the least any code that looks at every
// message once must pay.
// - cold: a new count cache and fresh message objects (as after loading the conversation
//   from storage), so every message is counted once and every shape read once;
// - warm: the same objects and a count cache filled by an earlier plan, as when the user
//   sends the next message: one lookup per message.
// Cold is shown with the default estimator and with chars/4; "estimator alone" is the
// default estimator over the same messages with no planning, for scale.
import {
  chars4,
  createCountCache,
  estimateMessageTokens,
  planContext,
  resolveModelInfo,
  type CachedCounter,
  type MessageTokenCounter,
  type ModelLimits,
} from '../../src/core';
import { agenticHistory, freshCopy, type BenchItem } from './conversations';
import { fmtMs, fmtRatio, type Row } from './harness';
import { interleavedMedians } from './interleaved';

export const title = 'planContext on 10,000 messages vs one JSON.stringify pass over them (CPU time; ratio = planContext ÷ JSON.stringify)';

const SIZE = 10_000;
const MODEL_ID = 'claude-haiku-4-5';

function plan(items: readonly BenchItem[], model: ModelLimits, counter: CachedCounter) {
  return planContext({ history: items, policy: { strategy: 'auto' }, model, counter });
}

export async function run(): Promise<Row[]> {
  const info = resolveModelInfo(MODEL_ID);
  const model: ModelLimits = { contextWindow: info.contextWindow, maxOutputTokens: info.maxOutputTokens };
  const items = agenticHistory(SIZE);
  const messages = items.map((item) => item.message);
  const jsonChars = JSON.stringify(messages).length;

  // Check what cold and warm mean before timing them: cold counts every message once (plus
  // the truncation marker, sized for the room it needs and as placed), warm only the marker.
  const coldOnce = (estimator: MessageTokenCounter) => {
    const copy = freshCopy(items);
    const counter = createCountCache(estimator);
    const result = plan(copy, model, counter);
    return { result, counter };
  };
  const check = coldOnce(estimateMessageTokens);
  const coldCounts = check.counter.stats().misses;
  if (coldCounts < SIZE || coldCounts > SIZE + 2 || check.result.metrics.overBudget) {
    throw new Error(`cold plan counted ${coldCounts} messages of ${SIZE} (+ up to 2 markers), overBudget ${String(check.result.metrics.overBudget)}`);
  }
  const warmCounter = createCountCache(estimateMessageTokens);
  plan(items, model, warmCounter);
  warmCounter.resetStats();
  const warmPlan = plan(items, model, warmCounter);
  // The marker is a new object in every plan, so warm still counts it (a few dozen characters).
  if (warmCounter.stats().misses > 2 || JSON.stringify(warmPlan) !== JSON.stringify(plan(items, model, warmCounter))) {
    throw new Error(`warm plan counted ${warmCounter.stats().misses} messages (at most the 2 markers expected), or two warm plans differ`);
  }

  const fresh = (estimator: MessageTokenCounter) => ({
    prepare: () => ({ copy: freshCopy(items), counter: createCountCache(estimator) }),
    run: (input: { copy: BenchItem[]; counter: CachedCounter }) => plan(input.copy, model, input.counter),
  });
  const t = await interleavedMedians(
    {
      'JSON.stringify': () => JSON.stringify(messages).length,
      coldDefault: fresh(estimateMessageTokens),
      coldChars4: fresh(chars4),
      warm: () => plan(items, model, warmCounter),
      estimatorAlone: () => messages.reduce((sum, message) => sum + estimateMessageTokens(message), 0),
    },
    // Fast tasks run in batches of at least 50 ms, so the one call right after each forced
    // collection (objects just moved, caches cold) weighs little in a warm plan's sample.
    { rounds: 7, warmup: 2, minBatchMs: 50 },
  );
  const stringify = t['JSON.stringify'] ?? NaN;
  const kept = warmPlan.messages.length;
  const row = (name: string, ms: number): Row => ({
    benchmark: 'planContext, 10,000 messages',
    case: name,
    value: fmtMs(ms),
    baseline: `JSON.stringify ${fmtMs(stringify)} (${(jsonChars / 1e6).toFixed(1)} M chars)`,
    ratio: fmtRatio(ms / stringify),
  });
  const policy = `auto, ${MODEL_ID} (${info.contextWindow.toLocaleString('en-US')}-token window), sends ${kept}`;
  return [
    row(`cold: new count cache, fresh objects, default estimator; ${policy}`, t.coldDefault ?? NaN),
    row('cold: new count cache, fresh objects, chars/4', t.coldChars4 ?? NaN),
    row('warm: counts cached by an earlier plan', t.warm ?? NaN),
    row('for scale: default estimator alone, no planning', t.estimatorAlone ?? NaN),
  ];
}
