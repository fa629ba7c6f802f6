import { ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { TEST_ENV } from './test-app';
import { SERVICE_ENTRY } from '../../src/service-process';

const ROOT = join(__dirname, '..', '..');

/** The environment of a process on the embedded database in `dataDir` (no DATABASE_URL). */
export function embeddedEnv(dataDir: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const { DATABASE_URL: _ignored, ...env } = process.env;
  return { ...env, ...TEST_ENV, DATA_DIR: dataDir, ...extra };
}

export interface RunningService {
  child: ChildProcess;
  /** What it printed, stdout and stderr, a line each. */
  lines: string[];
  url: string;
}

/** Starts the built service (SERVICE_ENTRY) on the embedded database in `dataDir`, ready when /health/ready answers. */
export async function startEmbeddedService(dataDir: string, port: number, extra: Record<string, string> = {}): Promise<RunningService> {
  const child = spawn(process.execPath, [join(ROOT, SERVICE_ENTRY)], {
    env: embeddedEnv(dataDir, { PORT: String(port), HOST: '127.0.0.1', ...extra }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  child.stdout!.on('data', (chunk) => lines.push(...String(chunk).split('\n').filter(Boolean)));
  child.stderr!.on('data', (chunk) => lines.push(...String(chunk).split('\n').filter(Boolean)));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`service exited: ${lines.join('\n')}`);
    const ready = await fetch(`${url}/health/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) return { child, lines, url };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('service did not start');
}

/** Stops it with SIGTERM; its exit code. */
export function stopService(running: RunningService): Promise<number | null> {
  return new Promise((resolve) => {
    running.child.once('exit', (code) => resolve(code));
    running.child.kill('SIGTERM');
  });
}
