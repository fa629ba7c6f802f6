import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVICE_ENTRY, SERVICE_NODE_FLAGS } from '../../src/service-process';

const root = join(__dirname, '..', '..');
const read = (file: string) => readFileSync(join(root, file), 'utf8');

/** Every way the service is started runs SERVICE_ENTRY with SERVICE_NODE_FLAGS (the bench and the tests import the constants themselves). */
describe('the service runs with its Node flags', () => {
  const flags = SERVICE_NODE_FLAGS.join(' ');

  it('has flags to apply', () => {
    expect(SERVICE_NODE_FLAGS.length).toBeGreaterThan(0);
  });

  it.each(['start', 'start:prod'])('npm run %s', (script) => {
    const scripts = JSON.parse(read('package.json')).scripts as Record<string, string>;
    expect(scripts[script]).toContain(`node ${flags} ${SERVICE_ENTRY}`);
  });

  it("the Docker image's command", () => {
    const cmd = read('Dockerfile')
      .split('\n')
      .find((line) => line.startsWith('CMD '));
    expect(JSON.parse(cmd!.slice(4))).toEqual(['node', ...SERVICE_NODE_FLAGS, SERVICE_ENTRY]);
  });
});
