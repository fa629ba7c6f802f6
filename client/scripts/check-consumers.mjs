// `npm run client:consumers` (CI): packs the client and type-checks the consumer projects of client/consumers/
// against the tarball, as a front-end team would use it. Each project is copied to a temporary directory and the
// tarball installed there with npm (its dependency, openapi-fetch, comes with it: from npm's cache, else the
// registry); the repository's own TypeScript compiles it with `tsc --noEmit` (nodenext also under Node16), the
// bundler one is bundled for the browser with esbuild, and the installed package is imported by Node.
// KEEP_CONSUMERS=1 leaves the temporary directory for a look.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const client = join(dirname(fileURLToPath(import.meta.url)), '..');
const root = join(client, '..');
const require = createRequire(join(root, 'package.json'));
const tsc = require.resolve('typescript/bin/tsc');
const tsVersion = require('typescript/package.json').version;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const work = mkdtempSync(join(tmpdir(), 'client-consumers-'));
const failures = [];

function run(title, command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', shell: process.platform === 'win32' });
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`.trim();
  const ok = result.status === 0;
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${title}${output ? `\n${output.replace(/^/gm, '     ')}` : ''}`);
  if (!ok) failures.push(title);
  return ok;
}

try {
  const packed = execFileSync(process.execPath, [join(client, 'scripts/pack.mjs'), '--out', work], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tarball = packed.trim().split('\n').at(-1);
  console.log(packed.trim().split('\n').at(-2));
  console.log(`TypeScript ${tsVersion}`);

  const consumers = readdirSync(join(client, 'consumers'), { withFileTypes: true }).filter((entry) => entry.isDirectory());
  for (const name of consumers.map((entry) => entry.name).sort()) {
    const project = join(work, name);
    cpSync(join(client, 'consumers', name), project, { recursive: true });
    cpSync(join(client, 'consumers', 'calls.ts'), join(project, 'calls.ts')); // the calls every consumer makes
    const installed = run(
      `${name}: npm install ${tarball.split(/[\\/]/).at(-1)}`,
      npm,
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--loglevel=error', tarball],
      project,
    );
    if (!installed) continue;
    if (!existsSync(join(project, 'node_modules/openapi-fetch/package.json'))) {
      console.log(`FAIL ${name}: openapi-fetch was not installed with the client`);
      failures.push(`${name}: dependency`);
      continue;
    }
    run(`${name}: tsc --noEmit -p tsconfig.json`, process.execPath, [tsc, '--noEmit', '-p', 'tsconfig.json'], project);
    if (name === 'nodenext') {
      run(
        `${name}: tsc --noEmit -p tsconfig.json --module node16 --moduleResolution node16`,
        process.execPath,
        [tsc, '--noEmit', '-p', 'tsconfig.json', '--module', 'node16', '--moduleResolution', 'node16'],
        project,
      );
      run(
        `${name}: node imports the package (ESM, exports map)`,
        process.execPath,
        [
          '--input-type=module',
          '-e',
          "const m = await import('@platform-service/client'); if (typeof m.createClient !== 'function') throw new Error('no createClient'); typeof m.createClient({ baseUrl: 'http://127.0.0.1:1' }).POST === 'function' || process.exit(1);",
        ],
        project,
      );
    }
    if (name === 'bundler') {
      const esbuild = require('esbuild');
      try {
        const result = await esbuild.build({
          entryPoints: [join(project, 'main.ts')],
          bundle: true,
          platform: 'browser',
          format: 'esm',
          target: 'es2022',
          minify: true,
          write: false,
          logLevel: 'silent',
          absWorkingDir: project,
        });
        const size = result.outputFiles[0].contents.length;
        console.log(`ok   ${name}: esbuild bundle for the browser (${size} bytes, minified)`);
      } catch (error) {
        console.log(`FAIL ${name}: esbuild bundle for the browser\n     ${String(error.message).replace(/\n/g, '\n     ')}`);
        failures.push(`${name}: bundle`);
      }
    }
  }
} finally {
  if (process.env.KEEP_CONSUMERS) console.log(`kept ${work}`);
  else rmSync(work, { recursive: true, force: true });
}
if (failures.length > 0) {
  console.error(`client consumers: ${failures.length} failed (${failures.join('; ')})`);
  process.exit(1);
}
console.log('client consumers: all passed');
