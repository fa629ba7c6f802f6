import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');

/**
 * bin/cli.js (what `npm run cli` runs) in a project of its own: a source file, its build, a "CLI" that
 * prints what it was given, and a stand-in for `nest build` that records each call and prints to stdout.
 */
function project(options: { buildFails?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'launcher-'));
  for (const sub of ['bin', 'src', 'dist/src', 'node_modules/@nestjs/cli/bin']) mkdirSync(join(dir, sub), { recursive: true });
  copyFileSync(join(ROOT, 'bin/cli.js'), join(dir, 'bin/cli.js'));
  writeFileSync(join(dir, 'src/cli.ts'), '// the CLI');
  writeFileSync(join(dir, 'src/a.ts'), 'export const a = 1;');
  writeFileSync(join(dir, 'dist/src/cli.js'), `console.log(JSON.stringify({ ran: process.argv.slice(2) }));`);
  writeFileSync(join(dir, 'dist/src/a.js'), 'exports.a = 1;');
  writeFileSync(
    join(dir, 'node_modules/@nestjs/cli/bin/nest.js'),
    `const fs = require('fs'); fs.appendFileSync(${JSON.stringify(join(dir, 'builds.log'))}, process.argv.slice(2).join(' ') + '\\n');
     console.log('compiler output on stdout'); ${options.buildFails ? "console.log('src/a.ts: error TS1005'); process.exit(1);" : ''}`,
  );
  // A build a minute old, of sources older still.
  const built = new Date(Date.now() - 60_000);
  const edited = new Date(Date.now() - 120_000);
  for (const file of ['dist/src/cli.js', 'dist/src/a.js']) utimesSync(join(dir, file), built, built);
  for (const file of ['src/cli.ts', 'src/a.ts']) utimesSync(join(dir, file), edited, edited);
  return dir;
}

function launch(dir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [join(dir, 'bin/cli.js'), ...args], (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const builds = (dir: string) => readFileSync(join(dir, 'builds.log'), { encoding: 'utf8', flag: 'a+' }).split('\n').filter(Boolean);

describe('bin/cli.js, the launcher of npm run cli', () => {
  it('runs the build as it is when no source is newer than its output', async () => {
    const dir = project();
    const res = await launch(dir, ['--help']);
    expect(res).toEqual({ code: 0, stdout: `${JSON.stringify({ ran: ['--help'] })}\n`, stderr: '' });
    expect(builds(dir)).toEqual([]);
  });

  it("builds first when a source changed, keeping stdout the command's own; then not again", async () => {
    const dir = project();
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = 2;'); // newer than dist/src/a.js (which this stand-in build leaves as it was)
    const first = await launch(dir, ['tenant:list']);
    expect(first.code).toBe(0);
    expect(first.stdout).toBe(`${JSON.stringify({ ran: ['tenant:list'] })}\n`);
    expect(first.stderr).toMatch(/^Building the CLI \(src[\\/]a\.ts changed\)/);
    expect(builds(dir)).toEqual(['build']);

    const second = await launch(dir, ['tenant:list']);
    expect([second.code, second.stderr]).toEqual([0, '']);
    expect(builds(dir)).toEqual(['build']);
  });

  it('counts a source file without output as changed', async () => {
    const dir = project();
    writeFileSync(join(dir, 'src/new-module.ts'), 'export {};');
    const res = await launch(dir, ['--help']);
    expect(res.stderr).toMatch(/src[\\/]new-module\.ts changed/);
    expect(builds(dir)).toEqual(['build']);
  });

  it('stops with the compiler output on stderr when the build fails', async () => {
    const dir = project({ buildFails: true });
    writeFileSync(join(dir, 'src/a.ts'), 'export const a = ;');
    const res = await launch(dir, ['--help']);
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toContain('src/a.ts: error TS1005');
    expect(JSON.parse(res.stderr.trim().split('\n').pop()!)).toEqual({
      status: 'Failed',
      message: 'The build failed; fix it or run npm run build',
    });
  });
});
