// Builds the client package into client/dist: src/index.ts compiled to ESM JavaScript with its declarations, and
// the generated types (src/schema.d.ts, which tsc does not copy) beside them, so that dist/index.d.ts's
// `import type … from './schema.js'` resolves. Run by `npm run build` and before `npm pack` (prepack) in client/.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const client = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(client, 'dist');
// TypeScript from the client's own node_modules or, inside this repository, the root's.
const tsc = createRequire(join(client, 'package.json')).resolve('typescript/bin/tsc');

rmSync(dist, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, '-p', join(client, 'tsconfig.json')], { stdio: 'inherit' });
copyFileSync(join(client, 'src/schema.d.ts'), join(dist, 'schema.d.ts'));

// What a consumer's compiler and bundler need, checked here so that a broken package is never packed.
for (const file of ['index.js', 'index.d.ts', 'schema.d.ts'])
  if (!existsSync(join(dist, file))) throw new Error(`client build: dist/${file} is missing`);
const relative = /from\s+'(\.[^']*)'/g;
for (const file of ['index.js', 'index.d.ts']) {
  for (const [, specifier] of readFileSync(join(dist, file), 'utf8').matchAll(relative))
    if (!specifier.endsWith('.js'))
      throw new Error(`client build: dist/${file} imports '${specifier}' without the .js extension ESM needs`);
}
console.log('client: built dist/ (index.js, index.d.ts, schema.d.ts)');
