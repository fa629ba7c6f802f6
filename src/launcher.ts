// First: a Node too old for what follows says so in one line and exits.
import './node-version';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';
import { STARTED_EVENT } from './service-process';

/**
 * dist/bundle/main.js, the service as `npm start`, `npm run start:prod` and the Docker image run it: the
 * whole service is one file, dist/bundle/service.js (scripts/bundle.mjs), run here with a V8 code cache.
 *
 * Node's own compile cache (src/compile-cache.ts) keeps only the code V8 compiles before a module runs,
 * which for a bundle is its outer function: every module body and function compiled while starting would be
 * compiled again at every start. This cache is made after start (`STARTED_EVENT`), so it holds them
 * too (docs/performance.md "Memory and start"). It lives where Node's compile cache does (NODE_COMPILE_CACHE,
 * else the temp directory's node-compile-cache), named by the bundle's checksum, Node's version and the
 * architecture, and NODE_DISABLE_COMPILE_CACHE=1 turns it off. V8 refuses a cache made with other flags;
 * then this start writes a new one.
 */
function launch(): void {
  withMallocTrim();
  const filename = join(__dirname, 'service.js');
  const source = readFileSync(filename, 'utf8');
  const cacheFile = process.env.NODE_DISABLE_COMPILE_CACHE ? null : codeCacheFile(source);
  const cachedData = cacheFile ? readIfPresent(cacheFile) : undefined;
  const script = new Script(Module.wrap(source), { filename, cachedData });
  if (cacheFile && (!cachedData || script.cachedDataRejected)) {
    process.once(STARTED_EVENT, () => writeAtomically(cacheFile, script.createCachedData()));
  }
  const service = new Module(filename, module);
  service.filename = filename;
  service.paths = module.paths;
  const requireFromService = Module.createRequire(filename);
  (script.runInThisContext() as (...args: unknown[]) => void).call(
    service.exports,
    service.exports,
    requireFromService,
    service,
    filename,
    __dirname,
  );
}

/**
 * glibc keeps what large native allocations freed (V8's code serializer above all) instead of giving it back
 * to the system: the start that writes the code cache, and to a lesser degree every start, stayed resident
 * well above what it uses (docs/performance.md "Figures that explain code choices"). With a fixed trim
 * threshold (glibc's default, 128 KB, which it otherwise raises as large blocks are freed) free() returns
 * that memory. glibc reads it from the environment only when the process starts, so on Linux the launcher
 * runs itself again with it set (execve: the same process, the same id), unless MALLOC_TRIM_THRESHOLD_ is set
 * already (the Docker image sets it).
 */
function withMallocTrim(): void {
  if (process.platform !== 'linux' || process.env.MALLOC_TRIM_THRESHOLD_ !== undefined || !process.execve) return;
  process.execve(process.execPath, [process.execPath, ...process.execArgv, ...process.argv.slice(1)], {
    ...process.env,
    MALLOC_TRIM_THRESHOLD_: '131072',
  });
}

function codeCacheFile(source: string): string {
  const dir = process.env.NODE_COMPILE_CACHE || join(tmpdir(), 'node-compile-cache');
  const checksum = crc32(source).toString(16).padStart(8, '0');
  return join(dir, `platform-service-${process.version}-${process.arch}-${source.length}-${checksum}.bin`);
}

function readIfPresent(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Several instances may start at once: each writes its own file and renames it into place. A cache that cannot be written is skipped. */
function writeAtomically(file: string, data: Buffer): void {
  try {
    mkdirSync(dirname(file), { recursive: true });
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, data);
    renameSync(partial, file);
  } catch {
    // A read-only or missing cache directory: the next start compiles again, as without a cache.
  }
}

launch();
