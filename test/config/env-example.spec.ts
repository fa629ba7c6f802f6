import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config/app-config';

const ROOT = join(__dirname, '..', '..');

/** The NAME=value lines of .env.example. */
function example(): Record<string, string> {
  const lines = readFileSync(join(ROOT, '.env.example'), 'utf8').split('\n');
  return Object.fromEntries(
    lines
      .filter((line) => /^[A-Z][A-Z0-9_]*=/.test(line))
      .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
  );
}

describe('.env.example', () => {
  it('names every variable the configuration reads', () => {
    const source = readFileSync(join(ROOT, 'src/config/app-config.ts'), 'utf8');
    const read = new Set([...source.matchAll(/\br\.(?:str|int|bool|url|secret|key)\('([A-Z][A-Z0-9_]*)'/g)].map((m) => m[1]));
    expect(read.size).toBeGreaterThan(50);
    expect([...read].filter((name) => !(name in example()))).toEqual([]);
  });

  it('states the defaults: loaded as the environment, it gives the configuration an empty environment gives', () => {
    const secrets = {
      JWT_ACCESS_SECRET: 'a'.repeat(40),
      JWT_REFRESH_SECRET: 'b'.repeat(40),
      ENCRYPTION_KEY: '1'.repeat(64),
      ENCRYPTION_IV: '2'.repeat(32),
    };
    const { warnings: _a, ...fromExample } = loadConfig({ ...example(), ...secrets });
    const { warnings: _b, ...fromNothing } = loadConfig({ ...secrets });
    expect(fromExample).toEqual(fromNothing);
  });
});
