/**
 * The first thing the service's launcher (dist/bundle/main.js), main.ts and the CLI run: on a Node older
 * than the one package.json's `engines` names, one line saying which Node is needed and how to get it, and
 * exit 1, before anything that needs the newer Node is loaded (under Node 20 the bundle failed with
 * `enableCompileCache is not a function` after printing ~100 KB of its minified source). bin/cli.js makes
 * the same check in its own first lines. Only node built-ins and syntax every Node since 12 parses.
 */
export const REQUIRED_NODE_MAJOR = 24;

export function nodeVersionProblem(version: string = process.versions.node, execPath: string = process.execPath): string | null {
  const major = Number(version.split('.')[0]);
  if (major >= REQUIRED_NODE_MAJOR) return null;
  return (
    `platform-service needs Node ${REQUIRED_NODE_MAJOR} or later; this is Node ${version} (${execPath}). ` +
    `\`npm ci\` installs Node ${REQUIRED_NODE_MAJOR} into node_modules/.bin, which npm scripts use (npm start, npm run cli): ` +
    `run those, or node_modules/.bin/node yourself, or install Node ${REQUIRED_NODE_MAJOR} (.nvmrc)`
  );
}

const problem = nodeVersionProblem();
if (problem !== null) {
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
