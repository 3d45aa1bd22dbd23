// @vitest-environment node
// `npm run bench` must end by itself: 0 when every bench passed, 1 when one failed or left
// something open, never a hang. Driven through fixtures/run.ts, which calls the same
// `runBenches` as test/bench/run.ts on the fixture benches beside it, in a child process,
// so the exit status and what keeps Node alive are the real ones.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { withCleanup, type Defer } from '../bench/harness';

const RUN = fileURLToPath(new URL('./fixtures/run.ts', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Far above the fixtures' 1 s grace period: reached only if the runner hangs.
const HANG_MS = 60_000;
const FORCED_EXIT = 'after the last benchmark, kept alive by';

function runFixtures(...names: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', RUN, ...names], { cwd: ROOT, encoding: 'utf8', timeout: HANG_MS });
  if (result.error) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('runBenches', () => {
  it('exits by itself with status 0 when every bench passes', () => {
    const { status, stdout, stderr } = runFixtures('passes');
    expect(stdout).toContain('### Fixture that passes');
    expect(stderr).not.toContain(FORCED_EXIT);
    expect(status).toBe(0);
  });

  it('reports a bench that throws, still runs the others, closes what the failed one opened and exits with status 1', () => {
    const { status, stdout, stderr } = runFixtures('fails', 'passes');
    expect(stderr).toContain('Benchmark fails failed');
    expect(stderr).toContain('deliberate failure after opening a server');
    expect(stderr).toContain('1 of 2 benchmarks failed: fails');
    expect(stdout).toContain('### Fixture that passes');
    // The failed bench's server was closed, so nothing had to force the exit.
    expect(stderr).not.toContain(FORCED_EXIT);
    expect(status).toBe(1);
  });

  it('names what a bench left open and exits with status 1 instead of hanging', () => {
    const { status, stdout, stderr } = runFixtures('leaks');
    expect(stdout).toContain('leaks a server');
    expect(stderr).toMatch(new RegExp(`${FORCED_EXIT}: .*TCPServerWrap`));
    expect(status).toBe(1);
  });

  it('fails a bench that reads a file beside the repository, naming the path, before anything is read', () => {
    const { status, stderr } = runFixtures('readsOutside');
    expect(stderr).toContain('Benchmark readsOutside failed');
    expect(stderr).toContain('Read outside the repository');
    expect(stderr).toContain('beside-the-repository');
    expect(stderr).not.toContain('ENOENT');
    expect(status).toBe(1);
  });

  it('exits with status 1 when no bench matches the names given', () => {
    const { status, stderr } = runFixtures('no-such-bench');
    expect(stderr).toContain('No benchmark matches no-such-bench');
    expect(status).toBe(1);
  });
});

describe('withCleanup', () => {
  /** A bench body that opens a server, then a browser, records the order they are closed in, and ends with `end`. */
  const opensServerThenBrowser = (closed: string[], end: () => Promise<string>) => async (defer: Defer) => {
    defer(() => closed.push('server'));
    defer(async () => closed.push('browser'));
    return end();
  };

  it('closes everything registered, the last opened first, and returns what the body returned', async () => {
    const closed: string[] = [];
    await expect(withCleanup(opensServerThenBrowser(closed, async () => 'rows'))).resolves.toBe('rows');
    expect(closed).toEqual(['browser', 'server']);
  });

  it('closes everything when the body throws, and throws what the body threw', async () => {
    const closed: string[] = [];
    const failure = new Error('page error');
    await expect(withCleanup(opensServerThenBrowser(closed, () => Promise.reject(failure)))).rejects.toBe(failure);
    expect(closed).toEqual(['browser', 'server']);
  });

  it('still closes the rest when one close fails, and fails the bench with that close', async () => {
    const closed: string[] = [];
    const closeFailure = new Error('browser would not close');
    const run = withCleanup(async (defer) => {
      defer(() => closed.push('server'));
      defer(() => {
        throw closeFailure;
      });
      return 'rows';
    });
    await expect(run).rejects.toBe(closeFailure);
    expect(closed).toEqual(['server']);
  });

  it('reports both the body failure and the close failure when both fail, the body first', async () => {
    const failure = new Error('page error');
    const closeFailure = new Error('server would not close');
    const run = withCleanup(async (defer) => {
      defer(() => Promise.reject(closeFailure));
      throw failure;
    });
    const error = await run.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AggregateError);
    expect((error as AggregateError).errors).toEqual([failure, closeFailure]);
  });
});
