import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The project's root folder (the one with package.json), from source and from dist/ alike. */
export function projectRoot(): string {
  let dir = __dirname;
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
}
