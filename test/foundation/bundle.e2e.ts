import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureBuilt, ServiceProcess } from '../support/cluster';
import { dropDatabase } from '../support/database';
import { createTestDatabase } from '../support/test-app';
import { waitFor } from '../support/wait';

/**
 * The service as it is deployed: the one-file bundle (scripts/bundle.mjs) run by its launcher
 * (src/launcher.ts), which keeps a V8 code cache of what start compiled beside Node's compile cache.
 */
describe('the bundled service and its code cache', () => {
  let db: { name: string; url: string };
  let cacheDir: string;
  let service: ServiceProcess | undefined;

  beforeAll(async () => {
    ensureBuilt();
    db = await createTestDatabase();
  }, 180_000);
  afterAll(async () => {
    await dropDatabase(db.name);
  });
  beforeEach(() => {
    cacheDir = mkdtempSync(join(tmpdir(), 'bundle-cache-'));
  });
  afterEach(async () => {
    await stop();
    rmSync(cacheDir, { recursive: true, force: true });
  });

  /** The built service on the test database, with its caches in this test's directory. */
  async function start(extra: Record<string, string> = {}): Promise<string> {
    service = await ServiceProcess.start({ DATABASE_URL: db.url, NODE_COMPILE_CACHE: cacheDir, ...extra });
    return service.url;
  }

  const stop = () => service?.stop() ?? Promise.resolve();

  /** Until the service says it has started (main.ts: after the launcher wrote its code cache, if it writes one); with LOG_LEVEL debug. */
  const started = () => waitFor(() => service!.logLines().some((line) => line.msg === 'Started'), 10_000, 'the Started log line');

  const codeCaches = () => readdirSync(cacheDir).filter((name) => /^platform-service-.*\.bin$/.test(name));

  it('writes the code cache once started, and the next start takes it without writing it again', async () => {
    const url = await start();
    // The cache is written when main.ts signals it has started (1.5 s after listening).
    await waitFor(() => codeCaches().length === 1, 10_000);
    const [file] = codeCaches();
    expect(file).toContain(process.version);
    expect(statSync(join(cacheDir, file)).size).toBeGreaterThan(1_000_000);
    expect((await fetch(`${url}/health/ready`)).status).toBe(200);
    await stop();

    const written = statSync(join(cacheDir, file)).mtimeMs;
    await start({ LOG_LEVEL: 'debug' });
    await started(); // past the moment a refused cache would be written again
    expect(codeCaches()).toEqual([file]);
    expect(statSync(join(cacheDir, file)).mtimeMs).toBe(written);
  }, 60_000);

  (process.platform === 'linux' ? it : it.skip)(
    'on Linux, runs with a fixed malloc trim threshold (the launcher starts itself again, the same process) unless one is set',
    async () => {
      const environ = () => readFileSync(`/proc/${service!.child.pid}/environ`, 'utf8').split('\0');
      await start();
      expect(environ()).toContain('MALLOC_TRIM_THRESHOLD_=131072');
      await stop();
      await start({ MALLOC_TRIM_THRESHOLD_: '262144' }); // the deployment's own (the Docker image sets it)
      expect(environ()).toContain('MALLOC_TRIM_THRESHOLD_=262144');
    },
    60_000,
  );

  it('a cache V8 refuses (damaged, or made with other flags) is replaced; the service starts all the same', async () => {
    await start();
    await waitFor(() => codeCaches().length === 1, 10_000);
    await stop();
    const file = join(cacheDir, codeCaches()[0]);
    const damaged = Buffer.alloc(statSync(file).size, 7);
    writeFileSync(file, damaged);

    await start();
    await waitFor(() => !readFileSync(file).equals(damaged), 10_000);
    expect(statSync(file).size).toBeGreaterThan(1_000_000);
  }, 60_000);

  it('NODE_DISABLE_COMPILE_CACHE=1 writes no cache', async () => {
    await start({ NODE_DISABLE_COMPILE_CACHE: '1', LOG_LEVEL: 'debug' });
    await started(); // past the moment a cache would be written
    expect(codeCaches()).toEqual([]);
  }, 60_000);

  it('serves what loads files at run time: Swagger UI from its package, the OpenAPI document', async () => {
    const url = await start({ DOCS_ENABLED: 'true' });
    const page = await fetch(`${url}/docs`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('swagger-ui');
    const script = await fetch(`${url}/docs/swagger-ui-bundle.js`);
    expect(script.status).toBe(200);
    expect((await script.text()).length).toBeGreaterThan(100_000);
  }, 60_000);
});
