import { ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { SERVICE_ENTRY, SERVICE_NODE_FLAGS } from '../src/service-process';

export const ROOT = join(__dirname, '..', '..');
export const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';
export const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** Warm-up bounds, in rounds of one-second turns (see warmUp). */
export const WARMUP_MIN_S = Number(process.env.BENCH_WARMUP_MIN_S ?? 30);
export const WARMUP_MAX_S = Number(process.env.BENCH_WARMUP_MAX_S ?? 60);

export interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  /** Responses received (all turns added up). */
  count: number;
}

export interface Target {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Several request shapes in rotation (autocannon `requests`). */
  requests?: { method?: 'GET' | 'POST'; path?: string; headers?: Record<string, string>; body?: string }[];
}

/** Load with autocannon from this process against a server in another process. */
export async function measure(target: Target, options: { duration?: number; connections?: number } = {}): Promise<Figures> {
  const result = await autocannon({
    url: target.url,
    method: target.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...target.headers },
    body: target.body,
    requests: target.requests,
    duration: options.duration ?? DURATION_S,
    connections: options.connections ?? CONNECTIONS,
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    count: result.requests.total,
  };
}

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function adminQuery(sql: string): Promise<void> {
  const client = new Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export interface Server {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts a node script (the service or a baseline) with `env` and Node's `flags`, and waits until `readyPath`
 * answers (polled every `pollMs`).
 */
export async function startNode(
  script: string,
  env: Record<string, string>,
  port: number,
  readyPath: string,
  pollMs = 100,
  flags: readonly string[] = [],
): Promise<Server> {
  const child: ChildProcess = spawn(process.execPath, [...flags, script], {
    env: { ...process.env, ...env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    if (Date.now() > deadline) throw new Error(`${script} was not ready within 60 s`);
    try {
      const res = await fetch(url + readyPath);
      if (res.ok) break;
    } catch {
      // not yet listening
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * The Node flags the bench and the soak start the service with: its start scripts' and image's
 * (SERVICE_NODE_FLAGS), or BENCH_NODE_FLAGS when set (`BENCH_NODE_FLAGS=` for none, to compare).
 */
export const BENCH_NODE_FLAGS: readonly string[] =
  process.env.BENCH_NODE_FLAGS !== undefined ? process.env.BENCH_NODE_FLAGS.split(/\s+/).filter(Boolean) : SERVICE_NODE_FLAGS;

/** The built service the bench starts: SERVICE_ENTRY, or BENCH_SERVICE_ENTRY (e.g. `dist/src/main.js`, unbundled, to compare). */
const BENCH_SERVICE_ENTRY = process.env.BENCH_SERVICE_ENTRY || SERVICE_ENTRY;

/** Starts the built service (BENCH_SERVICE_ENTRY) with `env` and BENCH_NODE_FLAGS, and waits until /health/ready answers. */
export async function startService(
  env: Record<string, string>,
  port?: number,
  options: { pollMs?: number; flags?: readonly string[] } = {},
): Promise<Server> {
  const script = join(ROOT, BENCH_SERVICE_ENTRY);
  return startNode(script, env, port ?? (await freePort()), '/health/ready', options.pollMs, options.flags ?? BENCH_NODE_FLAGS);
}

/** A port that was free a moment ago (so concurrent benchmark runs do not collide). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Runs the turns one after the other, `rounds` times, every other round in reverse order, so that load from
 * elsewhere on the shared machine falls on neighbouring turns alike. Answers, per round, each turn's result.
 */
export async function alternate<T>(turns: (() => Promise<T>)[], rounds: number): Promise<T[][]> {
  const results: T[][] = [];
  for (let round = 0; round < rounds; round++) {
    const turnResults = new Array<T>(turns.length);
    for (const i of round % 2 ? [...turns.keys()].reverse() : turns.keys()) turnResults[i] = await turns[i]();
    results.push(turnResults);
  }
  return results;
}

/** Figures of several turns of one target: mean rate and p50, worst p99, errors added up. */
export function combined(turns: Figures[]): Figures {
  const mean = (pick: (f: Figures) => number) => turns.reduce((sum, f) => sum + pick(f), 0) / turns.length;
  return {
    rps: mean((f) => f.rps),
    p50: mean((f) => f.p50),
    p99: Math.max(...turns.map((f) => f.p99)),
    errors: turns.reduce((n, f) => n + f.errors, 0),
    non2xx: turns.reduce((n, f) => n + f.non2xx, 0),
    count: turns.reduce((n, f) => n + f.count, 0),
  };
}

/**
 * The targets measured in turns of one second, `rounds` turns each (alternate). Answers each target's
 * combined figures and, per round, each target's rate. `meters[i]`, where given, adds up the CPU that target
 * i's turns cost (CpuMeter).
 */
export async function interleaved(
  targets: Target[],
  rounds: number,
  meters: (CpuMeter | undefined)[] = [],
): Promise<{ figures: Figures[]; perRound: number[][] }> {
  const results = await alternate(
    targets.map((target, i) => async () => {
      const turn = () => measure(target, { duration: 1 });
      const figures = await (meters[i] ? meters[i].around(turn) : turn());
      await settle();
      return figures;
    }),
    rounds,
  );
  return {
    figures: targets.map((_, i) => combined(results.map((round) => round[i]))),
    perRound: results.map((round) => round.map((f) => f.rps)),
  };
}

/** The machine counts as idle again once less than this share of all its cores' time is busy over SETTLE_WINDOW_MS. */
const SETTLE_BUSY = 0.2;
const SETTLE_WINDOW_MS = 50;
const SETTLE_MAX_MS = Number(process.env.BENCH_SETTLE_MAX_MS ?? 3000);

/**
 * Waits after a turn until the machine is idle again (at most SETTLE_MAX_MS): when autocannon stops, the
 * requests it leaves in flight are still worked on (after a turn of the page rotation with 50 connections,
 * a noticeable stretch of both cores' time), and without the wait that work ran in the next turn, every other round the
 * other side's: a side whose requests cost more slowed its peer down more than the peer slowed it. That work
 * counts to no side's CPU (CpuMeter measures the turn itself, as before).
 */
export async function settle(): Promise<void> {
  if (SETTLE_MAX_MS <= 0) return;
  settling.turns++;
  const deadline = Date.now() + SETTLE_MAX_MS;
  let before = machineTicks();
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, SETTLE_WINDOW_MS));
    const now = machineTicks();
    const total = now.total - before.total;
    if (total > 0 && now.busy - before.busy < SETTLE_BUSY * total) return;
    before = now;
  }
  settling.unsettled++;
}

/** Turns after which `settle` waited, and those after which the machine was still busy when it stopped waiting (run.ts prints them). */
export const settling = { turns: 0, unsettled: 0 };

/** The machine's CPU time so far, in clock ticks of all cores (/proc/stat): busy (user, nice, system, irq, softirq) and all. */
function machineTicks(): { busy: number; total: number } {
  const [user, nice, system, idle, iowait, irq, softirq, steal] = readFileSync('/proc/stat', 'utf8')
    .slice(0, 200)
    .split('\n')[0]
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const busy = user + nice + system + irq + softirq;
  return { busy, total: busy + idle + iowait + steal };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Load on the targets in interleaved one-second turns until the rate of each has stopped rising: at least
 * WARMUP_MIN_S rounds, then until, for every target, the best of its last five turns is within 3 % of the
 * best of the five before; at most WARMUP_MAX_S rounds. Answers the rounds it took.
 * - Why so long: a fresh service runs its first seconds (when V8 gets to it varies from run to run) well
 *   below its later rate while V8 compiles its hot paths; a raw baseline with far less code is warm much
 *   sooner (docs/performance.md "Warm-up and the framework floor"). A ratio after a fixed short warm-up
 *   compares compilation.
 * - Why interleaved: a service warmed first and then left idle while the others warm (a minute) serves its
 *   next turns at a fraction of its rate again (its pool has closed its idle connections, V8 has let go of some of
 *   its compiled code), so every target is kept as recently used as the others.
 * - Why the best of five, not the mean: a dip from other work on the shared machine does not end it early.
 */
export async function warmUp(targets: Target[], connections = CONNECTIONS): Promise<number> {
  const rates: number[][] = targets.map(() => []);
  const risen = (r: number[]) => Math.max(...r.slice(-5)) > 1.03 * Math.max(...r.slice(-10, -5));
  const [least, most] = [Math.max(WARMUP_MIN_S, 10), Math.max(WARMUP_MIN_S, WARMUP_MAX_S)];
  let round = 0;
  while (round < most) {
    round++;
    for (const [i, target] of targets.entries()) rates[i].push((await measure(target, { duration: 1, connections })).rps);
    if (round >= least && !rates.some(risen)) break;
  }
  return round;
}

/**
 * The service against its raw baseline: both warmed up (warmUp), then measured in interleaved one-second
 * turns (interleaved), `rounds` of them (BENCH_DURATION by default, so each side gets as many seconds as a
 * plain measurement): the mean figures of each, and the throughput ratio as the median of the rounds'
 * ratios, which a burst of other work on the shared machine moves little, where two measurements one after
 * the other can differ by half. `references` (e.g. a bare framework handler) are measured in the same turns,
 * each with its ratio to the baseline.
 */
export async function versusBaseline(
  service: Target,
  baseline: Target,
  rounds = Math.max(3, DURATION_S),
  references: Target[] = [],
): Promise<{
  service: Figures;
  baseline: Figures;
  ratio: number;
  warmUpRounds: number;
  references: { figures: Figures; ratio: number }[];
  /** Per round, each target's rate: service, baseline, then the references. */
  perRound: number[][];
}> {
  const targets = [service, baseline, ...references];
  const warmUpRounds = await warmUp(targets);
  const { figures, perRound } = await interleaved(targets, rounds);
  const ratioTo = (i: number) => median(perRound.map((rates) => rates[i] / rates[1]));
  return {
    service: figures[0],
    baseline: figures[1],
    ratio: ratioTo(0),
    warmUpRounds,
    references: references.map((_, r) => ({ figures: figures[r + 2], ratio: ratioTo(r + 2) })),
    perRound,
  };
}

export function row(name: string, f: Figures): string {
  return (
    `${name.padEnd(44)} ${f.rps.toFixed(0).padStart(8)} req/s   p50 ` +
    `${String(Number(f.p50.toFixed(2))).padStart(4)} ms   p99 ` +
    `${String(Number(f.p99.toFixed(2))).padStart(4)} ms${f.errors || f.non2xx ? `   (errors ${f.errors}, non-2xx ${f.non2xx})` : ''}`
  );
}

export function ratio(service: Figures, baseline: Figures, throughput = service.rps / baseline.rps): string {
  return `ratio service/baseline: ${throughput.toFixed(2)} (throughput), p99 ${baseline.p99 ? (service.p99 / baseline.p99).toFixed(2) : 'n/a'}x`;
}

/** The verdicts of this run, in order: run.ts prints them again as the closing summary. */
export const verdicts: string[] = [];

/**
 * One goal's verdict line (`PASS` or `FALL SHORT`), e.g. goal('validateToken vs raw', 0.91, '>=', 0.85).
 * `shown` formats the measured value (default: two decimals).
 */
export function goal(
  name: string,
  value: number,
  op: '>=' | '<' | '<=',
  threshold: number,
  shown: (v: number) => string = (v) => v.toFixed(2),
): string {
  const pass = op === '>=' ? value >= threshold : op === '<=' ? value <= threshold : value < threshold;
  const line = `${pass ? 'PASS      ' : 'FALL SHORT'}  ${name}: ${shown(value)} (goal ${op} ${shown(threshold)})`;
  verdicts.push(line);
  return line;
}

/**
 * Latency with microsecond resolution (autocannon's histogram keeps whole milliseconds): `connections`
 * keep-alive connections each sending one request after the other for `seconds`. Answers ms.
 */
export async function probeLatency(
  target: { url: string; headers?: Record<string, string>; body: string },
  connections: number,
  seconds: number,
): Promise<{ p50: number; p99: number; count: number; non2xx: number }> {
  const { Agent, request } = await import('node:http');
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const url = new URL(target.url);
  const headers = { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(target.body)), ...target.headers };
  const samples: number[] = [];
  let non2xx = 0;
  const deadline = Date.now() + seconds * 1000;
  const once = () =>
    new Promise<void>((resolve, reject) => {
      const started = process.hrtime.bigint();
      const req = request({ agent, host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers }, (res) => {
        res.resume();
        res.on('end', () => {
          samples.push(Number(process.hrtime.bigint() - started) / 1e6);
          if (res.statusCode! >= 300) non2xx++;
          resolve();
        });
      });
      req.on('error', reject);
      req.end(target.body);
    });
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < deadline) await once();
    }),
  );
  agent.destroy();
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))];
  return { p50: at(0.5), p99: at(0.99), count: samples.length, non2xx };
}

let ticksPerSecond: number | undefined;
/** Clock ticks per second of /proc's CPU times (`getconf CLK_TCK`; 100 where it cannot be asked). */
function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

/** CPU seconds (user + system, all its threads) that process `pid` has used so far, from /proc/<pid>/stat; undefined once it is gone. */
export function cpuSeconds(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The fields after the command name (which may hold spaces and parentheses) from field 3 (state) on: utime is field 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicks();
}

/**
 * The local ports of process `pid`'s TCP connections to port `remotePort` (its PostgreSQL connections), from
 * its socket descriptors (/proc/<pid>/fd) and the kernel's socket tables (/proc/net/tcp, tcp6).
 */
function connectionPorts(pid: number, remotePort: number): number[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const socket = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (socket) inodes.add(socket[1]);
    } catch {
      // closed since the listing
    }
  }
  const ports: number[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode ...; addresses as HEXADDR:HEXPORT.
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || !inodes.has(f[9])) continue;
      if (parseInt(f[2].split(':')[1], 16) === remotePort) ports.push(parseInt(f[1].split(':')[1], 16));
    }
  }
  return ports;
}

interface CpuSample {
  server: number;
  /** CPU seconds so far of each PostgreSQL backend serving the server, by backend pid. */
  backends: Map<number, number>;
}

/**
 * Adds up the CPU that a server process and the PostgreSQL backends serving it spend during measured turns
 * (`around`), read from /proc before and after each turn: the server's utime + stime, and those of every
 * backend whose client port is one of the server's connections to PostgreSQL (pg_stat_activity.client_port;
 * PostgreSQL must run on this machine, as the bench's does). A backend opened during a turn counts whole; one
 * closed during a turn is missed. `admin` is any connection to the same PostgreSQL.
 */
export class CpuMeter {
  /** CPU seconds of the server and of its backends, and the responses, over all turns so far. */
  readonly total = { server: 0, database: 0, requests: 0 };
  private readonly pgPort: number;

  constructor(
    private readonly pid: number,
    private readonly admin: Client,
  ) {
    this.pgPort = Number(new URL(ADMIN_URL).port || 5432);
  }

  async around<T extends { count: number }>(turn: () => Promise<T>): Promise<T> {
    const before = await this.sample();
    const figures = await turn();
    const after = await this.sample();
    this.total.server += after.server - before.server;
    for (const [pid, seconds] of after.backends) this.total.database += seconds - (before.backends.get(pid) ?? 0);
    this.total.requests += figures.count;
    return figures;
  }

  /** CPU seconds per 1,000 responses so far, of the server and of its PostgreSQL backends. */
  perThousand(): { server: number; database: number } {
    const per = (seconds: number) => (this.total.requests ? (seconds * 1000) / this.total.requests : NaN);
    return { server: per(this.total.server), database: per(this.total.database) };
  }

  private async sample(): Promise<CpuSample> {
    const ports = connectionPorts(this.pid, this.pgPort);
    const { rows } = await this.admin.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE client_port = ANY($1::int[])', [
      ports,
    ]);
    const backends = new Map<number, number>();
    for (const { pid } of rows) {
      const seconds = cpuSeconds(pid);
      if (seconds !== undefined) backends.set(pid, seconds);
    }
    // A PostgreSQL on another machine (or in another PID namespace) would read as no database CPU at all.
    if (rows.length && !backends.size)
      throw new Error(`PostgreSQL's backends (${rows.map((r) => r.pid).join(', ')}) are not in this machine's /proc`);
    const server = cpuSeconds(this.pid);
    if (server === undefined) throw new Error(`process ${this.pid} is gone`);
    return { server, backends };
  }
}
