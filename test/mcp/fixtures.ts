import type { McpServerConfig } from '../../src/core';

/** A configured server named Tracker whose one listed tool is the test server's lookup_issue. */
export function trackerServer(url: string, lookupAlwaysAllowed = false): McpServerConfig {
  return {
    id: 'srv-1',
    label: 'Tracker',
    url,
    enabled: true,
    auth: { type: 'bearer' },
    tools: [
      {
        name: 'lookup_issue',
        description: 'Looks up an issue.',
        inputSchema: { type: 'object', properties: { number: { type: 'integer' } } },
        enabled: true,
        alwaysAllow: lookupAlwaysAllowed,
      },
    ],
  };
}
