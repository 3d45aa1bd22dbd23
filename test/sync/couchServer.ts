/**
 * # A CouchDB-protocol server for sync tests
 *
 * Starts pouchdb-server 4.2 (node_modules) as a child process on 127.0.0.1 and configures it
 * as a user configures their own CouchDB 3 for a browser app (docs/sync-server.md): an admin
 * (no more "admin party"), CORS for any origin with credentials, users in `_users`, and
 * databases whose `_security` names their members.
 *
 * ```ts
 * const couch = await startCouchServer();                      // in memory
 * await couch.createUser('alice', 'secret');
 * const dbUrl = await couch.createDatabase('notes', ['alice']); // http://127.0.0.1:PORT/notes
 * (await couch.allDocs('notes')).rows;                          // what the server stores, attachments inlined
 * await couch.rewriteDoc('notes', 'doc-1', (doc) => { doc.payload = 'tampered'; });
 * await couch.restart();                                        // same port, data kept
 * await couch.stop();
 * ```
 *
 * ## What sits in front of pouchdb-server, and why
 * `url` is not pouchdb-server itself but a small proxy in this process, because pouchdb-server
 * 4.2 departs from CouchDB 3 where the app must be tested against CouchDB's behaviour:
 * - It reads `_security` but does not enforce it everywhere: `POST /db/_bulk_get`, the request
 *   replication reads documents with, answers anyone, anonymous included; a non-member's
 *   `_bulk_docs` is a 201 with an error per document. Other requests by a non-member are a 401,
 *   where CouchDB answers 403 to a user who logged in but is not a member.
 * - A non-admin's `PUT /{db}` (creating a database) crashes the whole server
 *   (`TypeError: db.info is not a function` in express-pouchdb), where CouchDB answers 401.
 * - `GET /_all_dbs` answers anyone; CouchDB 3 asks for an admin.
 * The proxy therefore checks, for every request on a database, who is asking (pouchdb-server's
 * own `GET /_session` with the request's credentials: a wrong name or password is its 401,
 * "Name or password is incorrect.") and the database's `_security`, and answers as CouchDB 3:
 * anonymous non-members 401 `unauthorized`, named non-members 403 `forbidden`, non-admins
 * creating or deleting a database or listing them 401 "You are not a server admin.". Server
 * admins, members, preflights and everything else are streamed through untouched, CORS
 * headers included; its own answers carry the same CORS headers.
 *
 * ## Storage and restart
 * In memory unless `persistentDir` is given; then pouchdb-server keeps its databases (LevelDB,
 * through leveldown's prebuilt binary, which loads here without install scripts), its
 * config.json and log.txt in that folder, and `restart()` ends the process and starts a new one
 * on the same files. An in-memory server cannot restart without losing everything, so there
 * `restart()` closes the port and every connection and opens the port again, keeping the same
 * process: what a browser sees of a restart, data kept. Either way the port stays the same.
 * The in-memory server's config.json and log.txt go to a folder under test-results/tmp (`SCRATCH_DIR`), removed by
 * `stop()`; `persistentDir` belongs to the caller. The child is killed by `stop()`, when this
 * process exits, and when this process dies in any other way (its stdin closes then).
 *
 * pouchdb-server's `_config` API is `/_config/{section}/{key}`; CouchDB 3's is
 * `/_node/_local/_config/{section}/{key}`, which pouchdb-server answers with 404.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { SCRATCH_DIR } from '../readGuard';
import { closeServer, forward, freePort, listen, sendCouchError } from './faultProxy';

/** test-results/tmp, made on first use: the tests' own scratch space inside the repository. */
export function scratchDir(): string {
  mkdirSync(SCRATCH_DIR, { recursive: true });
  return SCRATCH_DIR;
}

export interface CouchDoc {
  _id: string;
  _rev: string;
  _attachments?: Record<string, { content_type: string; data?: string; digest?: string; length?: number; revpos?: number; stub?: boolean }>;
  [field: string]: unknown;
}

export interface AllDocs {
  total_rows: number;
  offset: number;
  rows: Array<{ id: string; key: string; value: { rev: string }; doc?: CouchDoc }>;
}

export interface CouchServer {
  /** http://127.0.0.1:PORT, no trailing slash. */
  url: string;
  admin: { username: string; password: string };
  /** Creates a database and returns its URL. `_security` names `members`; without them only admins may use it, as CouchDB 3 makes a new database. */
  createDatabase(name: string, members?: string[]): Promise<string>;
  createUser(name: string, password: string): Promise<void>;
  /** `_all_docs?include_docs=true&attachments=true`, read as the admin. `db` is a name or a database URL. */
  allDocs(db: string): Promise<AllDocs>;
  /** Rewrites a stored document as the admin (a new revision) and returns its new `_rev`; `mutate` changes the document or returns a new one. */
  rewriteDoc(db: string, docId: string, mutate: (doc: CouchDoc) => CouchDoc | void): Promise<string>;
  stop(): Promise<void>;
  restart(): Promise<void>;
}

const ADMIN = { username: 'admin', password: 'windowpane-admin-password' };
const ADMIN_AUTHORIZATION = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;

/** The CORS settings a user makes on their own CouchDB 3 (docs/sync-server.md), as `section/key`. */
export const CORS_SETTINGS: ReadonlyArray<readonly [string, string]> = [
  ['httpd/enable_cors', 'true'],
  ['cors/origins', '*'],
  ['cors/credentials', 'true'],
  ['cors/methods', 'GET, PUT, POST, HEAD, DELETE'],
  ['cors/headers', 'accept, authorization, content-type, origin, referer'],
];

const require = createRequire(import.meta.url);
const SERVER_MAIN = require.resolve('pouchdb-server');

/** Runs pouchdb-server (argv from the environment) in a process that exits when its stdin closes, which it does when the parent dies, however it dies. */
const WATCHED_SERVER = [
  "process.stdin.on('end', () => process.exit(0)).on('error', () => process.exit(0)).resume();",
  'const [main, ...args] = JSON.parse(process.env.WINDOWPANE_COUCH_ARGV);',
  'process.argv = [process.argv[0], main, ...args];',
  'require(main);',
].join('\n');

type Registry = { children: Set<ChildProcess>; dirs: Set<string> };

/** What this process started and has not stopped: killed and removed when it exits (one registry and one exit hook per process). */
const owned: Registry = (() => {
  const key = Symbol.for('windowpane.couchServer.started');
  const state = globalThis as Record<symbol, Registry | undefined>;
  if (!state[key]) {
    const registry: Registry = { children: new Set(), dirs: new Set() };
    process.once('exit', () => {
      registry.children.forEach((child) => child.kill('SIGKILL'));
      registry.dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true }));
    });
    state[key] = registry;
  }
  return state[key];
})();

interface Child {
  process: ChildProcess;
  url: string;
  exited: Promise<void>;
  stderr(): string;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Starts pouchdb-server on a free port, trying another if someone took that one in between. */
async function startChild(workDir: string, persistent: boolean): Promise<Child> {
  for (let attempt = 1; ; attempt++) {
    const child = await startChildOn(await freePort(), workDir, persistent);
    if (child) return child;
    if (attempt === 3) throw new Error('pouchdb-server found its port taken three times.');
  }
}

/** The started child, or undefined if the port was taken. */
async function startChildOn(port: number, workDir: string, persistent: boolean): Promise<Child | undefined> {
  const args = ['--port', String(port), '--host', '127.0.0.1', '--config', path.join(workDir, 'config.json'), '-n'];
  args.push(...(persistent ? ['--dir', workDir] : ['--in-memory']));
  const child = spawn(process.execPath, ['-e', WATCHED_SERVER], {
    cwd: workDir,
    env: { ...process.env, WINDOWPANE_COUCH_ARGV: JSON.stringify([SERVER_MAIN, ...args]) },
    stdio: ['pipe', 'ignore', 'pipe'],
  });
  owned.children.add(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      owned.children.delete(child);
      resolve();
    }),
  );
  const started: Child = { process: child, url: `http://127.0.0.1:${port}`, exited, stderr: () => stderr };
  const isPouchDBServer = async () => {
    const response = await fetch(`${started.url}/`).catch(() => undefined);
    return !!response?.ok && 'express-pouchdb' in ((await response.json()) as object);
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`pouchdb-server exited on start: ${stderr}`);
    if (await isPouchDBServer().catch(() => false)) return started;
    if (stderr.includes('is already in use') || Date.now() > deadline) {
      await stopChild(started);
      if (stderr.includes('is already in use')) return undefined;
      throw new Error(`pouchdb-server did not answer within 20 s: ${stderr}`);
    }
    await sleep(50);
  }
}

async function stopChild(child: Child): Promise<void> {
  if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGTERM');
  await child.exited;
}

async function call(url: string, init: { method?: string; body?: unknown; admin?: boolean } = {}): Promise<{ status: number; body: unknown }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.admin ?? true) headers.authorization = ADMIN_AUTHORIZATION;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(url, { method: init.method ?? 'GET', headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function must(what: string, url: string, init: Parameters<typeof call>[1]): Promise<unknown> {
  const { status, body } = await call(url, init);
  if (status >= 300) throw new Error(`${what}: HTTP ${status} ${JSON.stringify(body)}`);
  return body;
}

/** An admin ends the admin party (once: the persistent config.json keeps it); then CORS, as a user sets it on their CouchDB. */
async function configure(base: string): Promise<void> {
  const session = (await must('GET /_session', `${base}/_session`, { admin: false })) as { userCtx: { roles: string[] } };
  if (session.userCtx.roles.includes('_admin')) {
    await must('creating the admin', `${base}/_config/admins/${ADMIN.username}`, { method: 'PUT', body: ADMIN.password, admin: false });
  }
  for (const [key, value] of CORS_SETTINGS) await must(`setting ${key}`, `${base}/_config/${key}`, { method: 'PUT', body: value });
}

type UserCtx = { name: string | null; roles: string[] };
type Section = { names?: string[]; roles?: string[] };
const isIn = (user: UserCtx, section: Section = {}) =>
  !!(user.name && section.names?.includes(user.name)) || user.roles.some((role) => section.roles?.includes(role));
const ADMIN_ONLY_PATHS = new Set(['_all_dbs', '_config']);

/** How CouchDB 3 would refuse this request, or undefined to forward it (see the top of this file). */
async function refusal(req: IncomingMessage, base: string): Promise<{ status: number; body: object } | undefined> {
  if (req.method === 'OPTIONS') return undefined;
  const segments = new URL(req.url ?? '/', 'http://server').pathname.split('/').filter(Boolean);
  const first = segments[0] ? decodeURIComponent(segments[0]) : '';
  const database = first !== '' && !first.startsWith('_');
  const adminOnly = ADMIN_ONLY_PATHS.has(first) || (database && segments.length === 1 && (req.method === 'PUT' || req.method === 'DELETE'));
  if (!adminOnly && !database) return undefined;

  const credentials: Record<string, string> = {};
  if (req.headers.authorization) credentials.authorization = req.headers.authorization;
  if (req.headers.cookie) credentials.cookie = req.headers.cookie;
  const session = await fetch(`${base}/_session`, { headers: credentials });
  const sessionBody = (await session.json()) as { userCtx: UserCtx };
  if (session.status === 401) return { status: 401, body: sessionBody };
  const user = sessionBody.userCtx;
  if (user.roles.includes('_admin')) return undefined;
  if (adminOnly) return { status: 401, body: { error: 'unauthorized', reason: 'You are not a server admin.' } };

  const security = await call(`${base}/${segments[0]}/_security`);
  if (security.status !== 200) return undefined; // no such database: the server says so
  const { members, admins } = security.body as { members?: Section; admins?: Section };
  const open = !members?.names?.length && !members?.roles?.length;
  if (open || isIn(user, members) || isIn(user, admins)) return undefined;
  return user.name === null
    ? { status: 401, body: { error: 'unauthorized', reason: 'You are not authorized to access this db.' } }
    : { status: 403, body: { error: 'forbidden', reason: 'You are not allowed to access this db.' } };
}

export async function startCouchServer(options: { persistentDir?: string } = {}): Promise<CouchServer> {
  const persistent = options.persistentDir !== undefined;
  const workDir = persistent ? path.resolve(options.persistentDir!) : mkdtempSync(path.join(scratchDir(), 'windowpane-couch-'));
  mkdirSync(workDir, { recursive: true });
  const removeWorkDir = () => {
    if (persistent) return;
    owned.dirs.delete(workDir);
    rmSync(workDir, { recursive: true, force: true });
  };
  if (!persistent) owned.dirs.add(workDir);
  let child: Child;
  try {
    child = await startChild(workDir, persistent);
  } catch (error) {
    removeWorkDir();
    throw error;
  }
  const agent = new http.Agent({ keepAlive: true });
  const front = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    const current = child;
    refusal(req, current.url).then(
      (refused) => {
        if (res.destroyed) return;
        if (refused) sendCouchError(req, res, refused.status, refused.body);
        else forward(req, res, new URL(current.url), agent);
      },
      (error: Error) => {
        const exited = current.process.exitCode !== null || current.process.signalCode !== null;
        const reason = exited ? `pouchdb-server exited: ${current.stderr()}` : `pouchdb-server cannot be reached: ${error.message}`;
        sendCouchError(req, res, 502, { error: 'bad_gateway', reason });
      },
    );
  });
  let port: number;
  try {
    await configure(child.url);
    port = await listen(front, 0);
  } catch (error) {
    await stopChild(child);
    removeWorkDir();
    throw error;
  }
  const url = `http://127.0.0.1:${port}`;
  const dbUrl = (db: string) => (/^https?:/.test(db) ? db.replace(/\/$/, '') : `${url}/${encodeURIComponent(db)}`);
  let stopped = false;

  return {
    url,
    admin: { ...ADMIN },
    async createDatabase(name, members) {
      await must(`creating database ${name}`, dbUrl(name), { method: 'PUT' });
      const security = { admins: { names: [], roles: [] }, members: members ? { names: members, roles: [] } : { names: [], roles: ['_admin'] } };
      await must(`setting ${name}/_security`, `${dbUrl(name)}/_security`, { method: 'PUT', body: security });
      return dbUrl(name);
    },
    async createUser(name, password) {
      const id = `org.couchdb.user:${name}`;
      await must(`creating user ${name}`, `${url}/_users/${encodeURIComponent(id)}`, {
        method: 'PUT',
        body: { _id: id, name, password, roles: [], type: 'user' },
      });
    },
    async allDocs(db) {
      return (await must(`reading ${db}`, `${dbUrl(db)}/_all_docs?include_docs=true&attachments=true`, {})) as AllDocs;
    },
    async rewriteDoc(db, docId, mutate) {
      const docUrl = `${dbUrl(db)}/${encodeURIComponent(docId)}`;
      const doc = (await must(`reading ${docId}`, `${docUrl}?attachments=true`, {})) as CouchDoc;
      const changed = mutate(doc) ?? doc;
      const written = (await must(`rewriting ${docId}`, docUrl, { method: 'PUT', body: { ...changed, _id: doc._id, _rev: doc._rev } })) as { rev: string };
      return written.rev;
    },
    async restart() {
      if (stopped) throw new Error('The server is stopped.');
      await closeServer(front);
      agent.destroy();
      if (persistent) {
        await stopChild(child);
        child = await startChild(workDir, true);
        await configure(child.url);
      } else {
        // The port stays closed a moment, as in a real restart, so clients in this process
        // notice their closed keep-alive connections before they would reuse them.
        await sleep(100);
      }
      await listen(front, port);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await closeServer(front);
      agent.destroy();
      await stopChild(child);
      removeWorkDir();
    },
  };
}
