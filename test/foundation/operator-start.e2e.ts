import { ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVICE_ENTRY } from '../../src/service-process';
import { dropDatabase } from '../support/database';
import { createTestDatabase, TEST_ENV } from '../support/test-app';

// Issue 41, the operator: what the built CLI and service do when started the ways an operator starts them
// (npm run build first: these run dist/).
const ROOT = join(__dirname, '..', '..');
const SECRETS = ['JWT_ACCESS_SECRET', 'JWT_REFRESH_SECRET', 'ENCRYPTION_KEY', 'ENCRYPTION_IV'];

type Result = { code: number; stdout: string; stderr: string };

function run(node: string, args: string[], env: NodeJS.ProcessEnv, cwd = ROOT): Promise<Result> {
  return new Promise((resolve) => {
    execFile(node, args, { env, cwd, timeout: 30_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The environment without any of the service's secrets, and with `extra`. */
function bareEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [...SECRETS, 'IDP_COOKIE_PASSWORD', 'IDP_CLIENT_ID', 'NODE_ENV', 'DATABASE_URL', 'DATA_DIR']) delete env[name];
  return { ...env, LOG_LEVEL: 'silent', ...extra };
}

describe('development secrets are for the embedded database only', () => {
  let db: { name: string; url: string };
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => dropDatabase(db.name));

  const message =
    'Invalid configuration: DATABASE_URL is set, so JWT_ACCESS_SECRET, JWT_REFRESH_SECRET, ENCRYPTION_KEY and ENCRYPTION_IV must be set too ' +
    '(the same values for every instance and the CLI): development secrets (DATA_DIR/dev-secrets.json) are only for the embedded database; ' +
    '`npm run -s cli -- secrets:generate` prints a set';

  it('the CLI with only DATABASE_URL refuses in one line, naming the variables, and writes no dev-secrets.json', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'cli-cwd-'));
    for (const args of [['tenant:create', '--name', 'X', '--domain', 'x.example.test'], ['migrate']]) {
      const res = await run(process.execPath, [join(ROOT, 'bin/cli.js'), ...args], bareEnv({ DATABASE_URL: db.url }), cwd);
      expect(res).toEqual({ code: 1, stdout: '', stderr: `${JSON.stringify({ status: 'Failed', message })}\n` });
    }
    expect(existsSync(join(cwd, '.data'))).toBe(false);
  });

  it('the server with only DATABASE_URL refuses to start with the same line', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'server-cwd-'));
    const res = await run(process.execPath, [join(ROOT, SERVICE_ENTRY)], bareEnv({ DATABASE_URL: db.url, PORT: '0' }), cwd);
    expect(res).toEqual({ code: 1, stdout: '', stderr: `${message}\n` });
    expect(existsSync(join(cwd, '.data'))).toBe(false);
  });

  it('names only what is missing, and IDP_COOKIE_PASSWORD when SSO is on', async () => {
    const env = bareEnv({ DATABASE_URL: db.url, JWT_ACCESS_SECRET: TEST_ENV.JWT_ACCESS_SECRET, ENCRYPTION_KEY: TEST_ENV.ENCRYPTION_KEY });
    const res = await run(process.execPath, [join(ROOT, 'dist/src/cli.js'), 'tenant:list'], { ...env, IDP_CLIENT_ID: 'platform' });
    expect(res.code).toBe(1);
    expect(JSON.parse(res.stderr).message).toMatch(
      /^Invalid configuration: DATABASE_URL is set, so JWT_REFRESH_SECRET, ENCRYPTION_IV and IDP_COOKIE_PASSWORD must be set too /,
    );
  });

  it('with the secrets set, the CLI and the server run on DATABASE_URL', async () => {
    const env = bareEnv({ DATABASE_URL: db.url, ...Object.fromEntries(SECRETS.map((name) => [name, TEST_ENV[name]])) });
    const res = await run(process.execPath, [join(ROOT, 'dist/src/cli.js'), 'tenant:list'], env);
    expect([res.code, res.stderr]).toEqual([0, '']);
    expect(Array.isArray(JSON.parse(res.stdout))).toBe(true);
  });

  it('the embedded database still gets its generated development secrets (DATA_DIR/dev-secrets.json)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'dev-secrets-cli-'));
    const res = await run(process.execPath, [join(ROOT, 'dist/src/cli.js'), 'migrate:status'], bareEnv({ DATA_DIR: dataDir }));
    expect(res.code).toBe(0);
    expect(Object.keys(JSON.parse(readFileSync(join(dataDir, 'dev-secrets.json'), 'utf8'))).sort()).toEqual([...SECRETS].sort());
  });
});

// The machine's own Node (Debian's, 20) stands for any Node older than package.json's engines.
const OLD_NODE = '/usr/bin/node';
const oldNodeVersion = existsSync(OLD_NODE)
  ? require('node:child_process').execFileSync(OLD_NODE, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim()
  : null;
const describeOldNode = oldNodeVersion !== null && Number(oldNodeVersion.split('.')[0]) < 24 ? describe : describe.skip;

describeOldNode(`under an older Node (${OLD_NODE}, ${oldNodeVersion})`, () => {
  const line =
    `platform-service needs Node 24 or later; this is Node ${oldNodeVersion} (${OLD_NODE}). ` +
    '`npm ci` installs Node 24 into node_modules/.bin, which npm scripts use (npm start, npm run cli): ' +
    'run those, or node_modules/.bin/node yourself, or install Node 24 (.nvmrc)\n';

  it.each([
    ['the service (dist/bundle/main.js)', [SERVICE_ENTRY]],
    ['the service with its flags', ['--max-semi-space-size=32', SERVICE_ENTRY]],
    ['the service unbundled (dist/src/main.js)', ['dist/src/main.js']],
    ['bin/cli.js', ['bin/cli.js', 'tenant:list']],
    ['bin/cli.js --help', ['bin/cli.js', '--help']],
    ['dist/src/cli.js', ['dist/src/cli.js', 'migrate']],
  ])('%s says which Node it needs in one line, and nothing else', async (_name, args) => {
    const res = await run(OLD_NODE, args, bareEnv({ DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/none' }));
    expect(res).toEqual({ code: 1, stdout: '', stderr: line });
  });
});

/** Whether a TCP port on 127.0.0.1 can be listened on. */
function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** A port nothing listens on now (the system's pick). */
function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pids whose parent is `pid` (Linux /proc). */
function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

function descendants(pid: number): number[] {
  return children(pid).flatMap((child) => [child, ...descendants(child)]);
}

describe('npm run start:prod under a process manager', () => {
  let db: { name: string; url: string };
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => dropDatabase(db.name));

  it('SIGTERM to the npm process stops the server: npm runs it through exec, so the signal reaches it', async () => {
    const port = await freePort();
    const npm = spawn('npm', ['run', 'start:prod'], {
      cwd: ROOT,
      env: { ...process.env, ...TEST_ENV, LOG_LEVEL: 'info', DATABASE_URL: db.url, PORT: String(port), HOST: '127.0.0.1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    }) as ChildProcess & { pid: number };
    const output: string[] = [];
    npm.stdout!.on('data', (chunk) => output.push(String(chunk)));
    npm.stderr!.on('data', (chunk) => output.push(String(chunk)));
    const exited = new Promise<number | null>((resolve) => npm.once('exit', (code, signal) => resolve(code ?? (signal ? -1 : null))));
    let server: number | undefined;
    try {
      for (let i = 0; i < 300; i++) {
        const ready = await fetch(`http://127.0.0.1:${port}/health/ready`).then(
          (r) => r.ok,
          () => false,
        );
        if (ready) break;
        if (npm.exitCode !== null) throw new Error(`npm exited: ${output.join('')}`);
        await new Promise((r) => setTimeout(r, 100));
      }
      const cmdline = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      server = descendants(npm.pid).find(
        (pid) =>
          /(^|\/)node$/.test(cmdline(pid)[0]) && cmdline(pid).some((arg) => arg === SERVICE_ENTRY || arg.endsWith(`/${SERVICE_ENTRY}`)),
      );
      expect(server).toBeDefined();
      expect(cmdline(server!)).toContain('--max-semi-space-size=32');
      const direct = children(npm.pid);

      npm.kill('SIGTERM');
      await exited;
      for (let i = 0; i < 100 && alive(server!); i++) await new Promise((r) => setTimeout(r, 100));
      expect(alive(server!)).toBe(false);
      expect(await portFree(port)).toBe(true);
      // npm's child was the server itself: no shell between them to swallow the signal.
      expect(direct).toEqual([server]);
      expect(output.join('')).toMatch(/"msg":"Stopped"/);
    } finally {
      // Whatever failed: nothing of it outlives the test (a server left behind would hold the port and the pipes).
      for (const pid of [...descendants(npm.pid), ...(server ? [server] : [])]) if (alive(pid)) process.kill(pid, 'SIGKILL');
      if (npm.exitCode === null) npm.kill('SIGKILL');
      npm.stdout!.destroy();
      npm.stderr!.destroy();
    }
  });
});
