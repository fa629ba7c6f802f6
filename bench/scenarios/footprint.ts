import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { goal, startService } from '../lib';
import { Scenario } from './types';

const IDLE_MS = 3000;

/** Resident memory of a process, from /proc (Linux). */
function rssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number(line?.split(/\s+/)[1]) / 1024;
}

/** Starts the built service, and answers the time until /health/ready answers and its RSS after IDLE_MS without requests. */
async function footprint(env: Record<string, string>): Promise<{ readyMs: number; rss: number }> {
  const started = performance.now();
  const server = await startService(env, undefined, { pollMs: 10 });
  const readyMs = performance.now() - started;
  try {
    await new Promise((r) => setTimeout(r, IDLE_MS));
    return { readyMs, rss: rssMb(server.pid) };
  } finally {
    await server.stop();
  }
}

/** Start-to-ready time and idle resident memory, on PostgreSQL and on the embedded default. */
export const footprintScenario: Scenario = {
  name: 'footprint: start to ready, idle RSS',
  async run(ctx) {
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await footprint(ctx.env));
    const readyMs = Math.min(...runs.map((r) => r.readyMs));
    const rss = Math.max(...runs.map((r) => r.rss));
    const dataDir = mkdtempSync(join(tmpdir(), 'bench-embedded-'));
    let embedded;
    try {
      // The embedded default as a new user starts it: no DATABASE_URL, development mode, a fresh data directory.
      const { DATABASE_URL: _url, ...withoutDatabase } = ctx.env;
      await footprint({ ...withoutDatabase, NODE_ENV: 'development', DATA_DIR: dataDir }); // creates, migrates and seeds
      embedded = await footprint({ ...withoutDatabase, NODE_ENV: 'development', DATA_DIR: dataDir });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
    const ms = (v: number) => `${v.toFixed(0)} ms`;
    const mb = (v: number) => `${v.toFixed(0)} MB`;
    return [
      `PostgreSQL: start to ready ${runs.map((r) => ms(r.readyMs)).join(' / ')}, idle RSS ${runs.map((r) => mb(r.rss)).join(' / ')}`,
      `embedded (existing data directory): start to ready ${ms(embedded.readyMs)}, idle RSS ${mb(embedded.rss)}`,
      goal('start to ready on PostgreSQL (best of 3)', readyMs, '<', 1000, ms),
      goal('idle RSS on PostgreSQL', rss, '<', 130, mb),
      goal('idle RSS on the embedded default', embedded.rss, '<', 300, mb),
    ];
  },
};
