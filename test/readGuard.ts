// Tests and benchmarks read only the repository (its node_modules included): a user's
// clone has nothing beside it. `guardReads` wraps Node's file-reading functions so that
// reading any other path throws at once, naming the path, in whatever test or benchmark
// tried it. Installed for every unit test (test/setup.ts), every browser test
// (test/e2e/setup.ts) and every benchmark (runBenches).
import fs, { mkdirSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { dirname, relative, resolve, isAbsolute } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export class OutsideReadError extends Error {
  constructor(readonly path: string) {
    super(`Read outside the repository: ${path}. Tests and benchmarks may read only the repository and its node_modules, which is all a fresh clone has.`);
    this.name = 'OutsideReadError';
  }
}

/** Whether `path` lies in `root` or below it. */
export function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function toPath(target: unknown): string | undefined {
  if (typeof target === 'string') return resolve(target);
  if (target instanceof URL) return target.protocol === 'file:' ? fileURLToPath(target) : undefined;
  if (target instanceof Uint8Array) return resolve(Buffer.from(target).toString('utf8'));
  return undefined; // a file descriptor: opened (and so checked) already
}

const INSTALLED = Symbol.for('windowpane.readGuard');
let allowed: string[] = [REPO_ROOT];

/** Throws OutsideReadError unless `target` is in the repository or a root passed to `guardReads`. */
export function checkRead(target: unknown): void {
  const path = toPath(target);
  if (path !== undefined && !allowed.some((root) => isWithin(root, path))) throw new OutsideReadError(path);
}

const isReadFlag = (flags: unknown) => flags === undefined || flags === null || flags === 'r' || flags === 'rs' || flags === fs.constants.O_RDONLY;

type Fn = (...args: unknown[]) => unknown;

/** Wraps `owner[name]` so it checks its path first: throwing for sync and callback functions, rejecting for promise ones. */
function wrap(owner: Record<string, unknown>, name: string, options: { applies?: (args: unknown[]) => boolean; promise?: boolean } = {}): void {
  const original = owner[name] as Fn | undefined;
  if (typeof original !== 'function') return;
  owner[name] = function guarded(this: unknown, ...args: unknown[]) {
    if (options.applies?.(args) ?? true) {
      try {
        checkRead(args[0]);
      } catch (error) {
        if (options.promise) return Promise.reject(error);
        throw error;
      }
    }
    return original.apply(this, args);
  };
}

/** Temporary files of this process and its children (a browser's profile, its downloads). */
export const SCRATCH_DIR = resolve(REPO_ROOT, 'test-results', 'tmp');

/**
 * Makes every read of a file or folder outside the repository (and `extraRoots`, such as
 * a corpus the user named for the benchmarks) throw OutsideReadError. Temporary files go
 * to SCRATCH_DIR (git-ignored), so tools that read back what they wrote there, such as
 * Playwright cleaning up a browser profile, stay inside the repository. Idempotent.
 */
export function guardReads(extraRoots: readonly string[] = []): void {
  allowed = [REPO_ROOT, ...extraRoots.map((root) => resolve(root))];
  mkdirSync(SCRATCH_DIR, { recursive: true });
  process.env.TMPDIR = SCRATCH_DIR;
  const state = globalThis as Record<symbol, unknown>;
  if (state[INSTALLED]) return;
  state[INSTALLED] = true;
  const sync = fs as unknown as Record<string, unknown>;
  const promises = fs.promises as unknown as Record<string, unknown>;
  for (const name of ['readFileSync', 'readFile', 'readdirSync', 'readdir', 'opendirSync', 'opendir', 'createReadStream', 'readlinkSync', 'readlink'])
    wrap(sync, name);
  for (const name of ['openSync', 'open']) wrap(sync, name, { applies: (args) => isReadFlag(args[1]) || typeof args[1] === 'function' });
  for (const name of ['readFile', 'readdir', 'opendir', 'readlink']) wrap(promises, name, { promise: true });
  wrap(promises, 'open', { applies: (args) => isReadFlag(args[1]), promise: true });
  // ES module imports of node:fs see the wrapped functions too.
  syncBuiltinESMExports();
}
