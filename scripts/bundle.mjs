// `npm run build`'s second step: the built service (dist/src, from `nest build`) as one file, so that a start
// reads one script instead of resolving and compiling ~2,700 modules (docs/performance.md "Memory and start").
//   dist/bundle/service.js        main.ts and every module it loads at start
//   dist/bundle/bcrypt.worker.js  the login hashing worker (src/auth/password/bcrypt-pool.ts finds it beside the service)
//   dist/bundle/main.js           the launcher (src/launcher.ts): runs service.js with a V8 code cache
// The input is tsc's output, so decorator metadata is already emitted. Left outside, loaded from node_modules
// at run time: native addons, packages that find their own files beside them, packages TypeORM loads by name
// (one copy for both), and the libraries the service loads at first use (docs/performance.md).
import { build } from 'esbuild';
import { readFile } from 'node:fs/promises';

const EXTERNAL = [
  // Native addons and packages that read files beside their own code.
  'bcrypt',
  'pg-native',
  '@electric-sql/*',
  'piscina',
  'swagger-ui-dist',
  // TypeORM requires its driver by name: it and the service must share one pg.
  'pg',
  // Loaded at first use: the payment SDK, QR codes, web push, the SQL merge parser, Redis, mail templates and their CSS inliner.
  'stripe',
  'qrcode',
  'web-push',
  'pgsql-ast-parser',
  'ioredis',
  '@nestjs-modules/mailer/adapters/*',
  '@css-inline/css-inline', // a native addon too
  'preview-email',
  // Shared with the lazily loaded template adapter.
  'lodash',
];

const SELF_REQUIRE = 'const require = createRequire(import.meta.url);';

/**
 * Optional peers a package loads in a try (Nest's microservices, websockets, express...) stay `require`s
 * that fail at run time, as they do unbundled. A few Nest ES modules make their own `require` from
 * import.meta.url to load regular dependencies (typeorm, class-validator): the bundle's require takes its
 * place, so those resolve to the bundled copy instead of a second one.
 */
const nodeModulesAsTheyAre = {
  name: 'node-modules-as-they-are',
  setup(bundle) {
    bundle.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === 'resolving') return undefined;
      const { kind, importer, resolveDir } = args;
      const resolved = await bundle.resolve(args.path, { kind, importer, resolveDir, pluginData: 'resolving' });
      return resolved.errors.length ? { path: args.path, external: true } : resolved;
    });
    bundle.onLoad({ filter: /node_modules[\\/]@nestjs[\\/].*\.js$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      return text.includes(SELF_REQUIRE) ? { contents: text.replace(SELF_REQUIRE, ''), loader: 'js' } : undefined;
    });
  },
};

await build({
  entryPoints: { main: 'dist/src/launcher.js', service: 'dist/src/main.js', 'bcrypt.worker': 'dist/src/auth/password/bcrypt.worker.js' },
  outdir: 'dist/bundle',
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node24',
  // Not keepNames: it wraps every named function in a call that sets its name again, also the closures made
  // per request (/getApp measurably slower). Only top-level names of ES modules can be renamed, where two modules
  // of a package meet (a few Nest classes: TypeOrmModule2 in debug logs); tsc's CommonJS output, ours
  // included (entities, DTOs, providers), keeps its own scopes and names.
  // Less source for V8 to keep in memory. Not minifySyntax: it drops the names of class expressions, and tsc
  // writes decorated classes as `let X = X_1 = class X {}`, so X.name would become "X_1" (Nest's log contexts,
  // OpenAPI schema names).
  minifyWhitespace: true,
  sourcemap: 'linked',
  external: EXTERNAL,
  plugins: [nodeModulesAsTheyAre],
  define: { 'import.meta.url': '__bundleUrl' },
  banner: { js: 'const __bundleUrl = require("node:url").pathToFileURL(__filename).href;' },
  logLevel: 'warning',
});
