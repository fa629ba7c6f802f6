import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedService, stopService } from '../support/embedded-service';

/** The built service on the embedded database in `dataDir`, its log at info. */
const start = (dataDir: string, port: number) => startEmbeddedService(dataDir, port, { LOG_LEVEL: 'info' });
const stop = stopService;

describe('the service on the embedded database', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-data-'));
  const port = 39000 + (process.pid % 500);

  it('starts migrated with the demo tenant, logs JSON with request ids, and keeps its data across a restart', async () => {
    const first = await start(dataDir, port);
    const res = await fetch(`${first.url}/getApp`, { method: 'POST', headers: { 'site-id': '7', 'x-request-id': 'embedded-check-1' } });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { payment_test_public_key: string }).payment_test_public_key).toBe('pk_test_demo');
    expect(first.lines.join('\n')).toMatch(/Demo tenant: appID 7/);
    expect(first.lines.join('\n')).toMatch(/curl -s -X POST http:\/\/localhost:\d+\/getApp -H 'site-id: 7'/);

    // The restart must find the migrations applied and the seeded tenant still there.
    expect(await stop(first)).toBe(0);
    const jsonLines = first.lines.filter((l) => l.startsWith('{')).map((l) => JSON.parse(l));
    const requestLine = jsonLines.find((l) => l.msg === 'request' && l.url === '/getApp');
    expect(requestLine).toMatchObject({ requestId: 'embedded-check-1', status: 200, method: 'POST' });
    expect(jsonLines.some((l) => /Shutting down/.test(l.msg))).toBe(true);

    const second = await start(dataDir, port);
    try {
      const again = await fetch(`${second.url}/getApp`, { method: 'POST', headers: { 'site-id': '7' } });
      expect(again.status).toBe(200);
      const log = second.lines.join('\n');
      expect(log).not.toMatch(/Applied migrations/);
      expect(log).toMatch(/Demo tenant: appID 7/);
    } finally {
      await stop(second);
    }
  }, 120_000);
});
