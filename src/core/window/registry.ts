/**
 * The strategy registry: the built-in strategies under their names, open to new ones.
 * A strategy is looked up by the policy's name each time a plan is made.
 */
import { ConfigError } from '../errors';
import { autoStrategy } from './autoStrategy';
import { countStrategy, offStrategy, providerStrategy, rollingStrategy, summarizeStrategy, truncateStrategy, twoTierStrategy } from './builtinStrategies';
import type { ContextStrategy } from './types';

const strategies = new Map<string, ContextStrategy>();

/**
 * Adds `strategy` under `name` (lowercase letters, digits, dashes). Names are unique:
 * registering a taken name throws a ConfigError, so a built-in cannot be replaced by accident.
 */
export function registerStrategy<O>(name: string, strategy: ContextStrategy<O>): void {
  if (!/^[a-z][a-z0-9-]*$/.test(name)) throw new ConfigError('strategy', `strategy name "${name}" must be lowercase letters, digits and dashes`);
  if (strategies.has(name)) throw new ConfigError('strategy', `a strategy named "${name}" is already registered`);
  strategies.set(name, strategy as ContextStrategy);
}

/** The strategy registered under `name`, or undefined. */
export function getStrategy(name: string): ContextStrategy | undefined {
  return strategies.get(name);
}

/** Registered strategy names, built-ins first, then in registration order. */
export function listStrategies(): string[] {
  return [...strategies.keys()];
}

/** The strategies a user may pick, in registration order, with their labels. */
export function strategyChoices(): { name: string; label: string }[] {
  return [...strategies].map(([name, strategy]) => ({ name, label: strategy.label ?? name }));
}

registerStrategy('auto', autoStrategy);
registerStrategy('count', countStrategy);
registerStrategy('rolling', rollingStrategy);
registerStrategy('truncate', truncateStrategy);
registerStrategy('summarize', summarizeStrategy);
registerStrategy('two-tier', twoTierStrategy);
registerStrategy('provider', providerStrategy);
registerStrategy('off', offStrategy);
