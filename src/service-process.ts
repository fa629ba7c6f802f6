/**
 * How the service process is run: its entry file, its Node flags, and the event the launcher waits for.
 * package.json's start scripts, the Dockerfile's command, the bench and the tests that start the built
 * service use these (test/foundation/node-flags.spec.ts checks they agree).
 */

/** The built service: the launcher of the one-file bundle (src/launcher.ts, scripts/bundle.mjs). */
export const SERVICE_ENTRY = 'dist/bundle/main.js';

/**
 * A young generation of 32 MB semi-spaces instead of V8's default (up to 64 MB on a machine with plenty of
 * memory): in the soak the service then peaks at about half the memory; smaller semi-spaces save a little
 * more but cost validateToken CPU in scavenges (docs/performance.md "Memory and start", "Figures that explain
 * code choices").
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=32'];

/**
 * Emitted on `process` by main.ts once the service has listened and served its first moments: the launcher
 * then keeps the code of everything start ran.
 */
export const STARTED_EVENT = 'platform-service:started';
