import type { JobName } from '../../src/metrics/metrics.service';
import type { TestApp } from './test-app';

const POLL_MS = 20;
const pause = () => new Promise((resolve) => setTimeout(resolve, POLL_MS));

/** Polls `check` until it holds; throws `timed out` (naming `what`) after `timeoutMs`. For effects that land asynchronously (mail, notifications). */
export async function waitFor(check: () => boolean | Promise<boolean>, timeoutMs = 10_000, what?: string): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(what ? `timed out waiting for ${what}` : 'timed out');
    await pause();
  }
}

/** Runs `assertion` until it no longer throws and answers what it answered; after `timeoutMs`, its last error. */
export async function eventually<T>(assertion: () => T | Promise<T>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await assertion();
    } catch (error) {
      if (Date.now() > until) throw error;
      await pause();
    }
  }
}

/** An instance whose /metrics can be read: an application in this process, or a running service (its base URL). */
export type MetricsSource = TestApp | { url: string };

/** The Prometheus text of `source`'s /metrics (no METRICS_TOKEN: the tests' instances set none). */
export async function scrapeMetrics(source: MetricsSource): Promise<string> {
  if ('app' in source) return (await source.app.inject({ method: 'GET', url: '/metrics' })).body;
  const res = await fetch(`${source.url}/metrics`);
  if (!res.ok) throw new Error(`GET ${source.url}/metrics answered ${res.status}`);
  return res.text();
}

/** The value of the sample `name` whose labels include `labels` in a Prometheus text; undefined when there is none. */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const match = /^([A-Za-z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = new Map([...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => found.get(key) === value)) return Number(match[3]);
  }
  return undefined;
}

/** How many runs of the background job `job` `source` has finished (job_runs_total, failed runs included). */
export async function jobRuns(source: MetricsSource, job: JobName): Promise<number> {
  const runs = metricValue(await scrapeMetrics(source), 'job_runs_total', { job });
  if (runs === undefined) throw new Error(`no job_runs_total{job="${job}"} at /metrics`);
  return runs;
}

/**
 * Waits until each of `sources` has finished `rounds` more runs of `job` than when called (job_runs_total):
 * a job's runs on one instance follow each other, so with 2 (the default) at least one whole run started after
 * the call and ended, and the one running at the call (what it was sending, expiring, applying) has ended too.
 * The positive form of "what a later run would do has happened by now", instead of a guessed sleep.
 */
export async function waitForJobRuns(sources: MetricsSource[], job: JobName, rounds = 2, timeoutMs = 20_000): Promise<void> {
  const start = await Promise.all(sources.map((source) => jobRuns(source, job)));
  await waitFor(
    async () => (await Promise.all(sources.map((source) => jobRuns(source, job)))).every((runs, i) => runs >= start[i] + rounds),
    timeoutMs,
    `${rounds} more ${job} runs on each of ${sources.length} instance(s)`,
  );
}
