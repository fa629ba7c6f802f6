#!/usr/bin/env node
'use strict';
// The command line's launcher (`npm run cli -- <command>`, and the package's `platform-cli` bin): runs the
// built CLI, dist/src/cli.js, building it first only when the build is missing or older than the sources.
// Fresh means: every .ts file under src/ and migrations/ is older than its compiled .js (tsc's incremental
// build rewrites only what changed) or than the stamp this launcher writes after a build of its own. With
// no src/ (an image holding only dist/), the build is what there is. Building prints to stderr only, so
// stdout stays the command's JSON.
// A Node older than package.json's engines (src/node-version.ts, which the built CLI checks too) is named in one
// line before anything is built or loaded.
if (Number(process.versions.node.split('.')[0]) < 24) {
  process.stderr.write(
    `platform-service needs Node 24 or later; this is Node ${process.versions.node} (${process.execPath}). ` +
      '`npm ci` installs Node 24 into node_modules/.bin, which npm scripts use (npm start, npm run cli): ' +
      'run those, or node_modules/.bin/node yourself, or install Node 24 (.nvmrc)\n',
  );
  process.exit(1);
}
const { spawnSync } = require('node:child_process');
const { existsSync, readdirSync, statSync, utimesSync, writeFileSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..');
const entry = join(root, 'dist', 'src', 'cli.js');
const stamp = join(root, 'dist', '.cli-build-stamp');

function mtime(file) {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return -1;
  }
}

/** The first source under `dir` (relative to the root) whose .js is missing or older, or null. */
function staleSource(dir, stampMs) {
  let names;
  try {
    names = readdirSync(join(root, dir), { withFileTypes: true });
  } catch {
    return null; // no such directory: nothing to build from
  }
  for (const entry of names) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      const stale = staleSource(path, stampMs);
      if (stale) return stale;
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') && !entry.name.endsWith('.spec.ts')) {
      const source = mtime(join(root, path));
      if (source > stampMs && source > mtime(join(root, 'dist', path.replace(/\.ts$/, '.js')))) return path;
    }
  }
  return null;
}

function build(reason) {
  process.stderr.write(`Building the CLI (${reason})…\n`);
  const started = new Date(); // the stamp's time: a source saved while the build runs is newer, and builds next time
  let nest;
  try {
    nest = require.resolve('@nestjs/cli/bin/nest.js', { paths: [root] });
  } catch {
    const message = 'The build is missing or out of date and @nestjs/cli is not installed: run npm ci, then npm run build';
    process.stderr.write(`${JSON.stringify({ status: 'Failed', message })}\n`);
    process.exit(1);
  }
  // This Node runs the build too (under npm, node_modules/.bin/node: Node 24).
  const result = spawnSync(process.execPath, [nest, 'build'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) {
    process.stderr.write(`${result.stdout ?? ''}${result.stderr ?? ''}`);
    process.stderr.write(
      `${JSON.stringify({ status: 'Failed', message: `The build failed${result.error ? `: ${result.error.message}` : ''}; fix it or run npm run build` })}\n`,
    );
    process.exit(1);
  }
  writeFileSync(stamp, started.toISOString());
  utimesSync(stamp, started, started);
}

const hasSources = existsSync(join(root, 'src'));
if (hasSources) {
  if (!existsSync(entry)) build('no build yet');
  else {
    const stale = staleSource('src', mtime(stamp)) ?? staleSource('migrations', mtime(stamp));
    if (stale) build(`${stale} changed`);
  }
} else if (!existsSync(entry)) {
  process.stderr.write(
    `${JSON.stringify({ status: 'Failed', message: `${entry} is missing and there are no sources to build it from` })}\n`,
  );
  process.exit(1);
}

require(entry);
