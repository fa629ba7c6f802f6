// `npm run client:pack`: the installable package of the client, platform-service-client-<version>.tgz (ESM, with
// its declarations and openapi-fetch as its dependency). `npm pack` in client/ builds it first (prepack:
// scripts/build.mjs). Writes the tarball to the current directory, or to the one given with --out DIR, and prints
// its path on the last line.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const client = join(dirname(fileURLToPath(import.meta.url)), '..');
const at = process.argv.indexOf('--out');
const out = resolve(at >= 0 ? process.argv[at + 1] : '.');
mkdirSync(out, { recursive: true });

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const json = execFileSync(npm, ['pack', '--json', '--pack-destination', out], {
  cwd: client,
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
  shell: process.platform === 'win32',
});
// npm prints the prepack script's output before the JSON.
const [packed] = JSON.parse(json.slice(json.indexOf('[')));
const files = packed.files.map((f) => f.path).sort();
for (const needed of ['package.json', 'README.md', 'openapi.json', 'dist/index.js', 'dist/index.d.ts', 'dist/schema.d.ts'])
  if (!files.includes(needed)) throw new Error(`client pack: ${packed.filename} lacks ${needed}`);
console.log(`client: ${packed.name}@${packed.version}, ${files.length} files (${files.join(', ')}), ${packed.size} bytes`);
console.log(join(out, packed.filename));
