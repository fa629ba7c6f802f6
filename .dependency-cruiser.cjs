/**
 * Arrows only run down (README "Architecture"): `npm run lint:arrows` (also part of `npm run lint`, so of
 * .ci/run) fails on an import that goes up a layer or sideways, on an import of another module's file past
 * its index.ts, and on an import cycle between files of different modules.
 *
 * The layers, bottom to top. A module imports only from lower layers; a same-layer import is an error
 * unless SIDEWAYS lists it.
 */
const LAYERS = [
  ['config', 'common', 'database', 'metrics', 'mail'], // L0 foundation
  ['app-context', 'audit', 'rate-limit', 'related'], // L1
  ['versioning', 'settings'], // L2
  ['messaging'], // L3
  ['auth'], // L4
  ['idp', 'tokens', 'data-rows'], // L5
  ['orders'], // L6
  ['cli', 'health', 'console'], // L7, with the bootstrap files src/*.ts (app.module, main, cli, openapi…), which may import anything
];

/** Same-layer imports that are part of the design. */
const SIDEWAYS = {
  // The foundation: config at the bottom, common and database use each other, metrics and mail use both.
  common: ['config', 'database'],
  database: ['config', 'common'],
  metrics: ['config', 'common', 'database'],
  mail: ['config', 'common', 'database'],
  // core_related rows belong to a tenant: its entity references core_sites.
  related: ['app-context'],
  // core_audit_log rows belong to a tenant: its entity references core_sites.
  audit: ['app-context'],
};

/** Modules whose public surface is their index.ts; config/, common/, database/ (no index) are imported file by file. */
const INDEXED = [
  'app-context',
  'audit',
  'rate-limit',
  'related',
  'versioning',
  'settings',
  'messaging',
  'auth',
  'idp',
  'tokens',
  'data-rows',
  'orders',
  'console',
  'metrics',
  'mail',
];

const alternatives = (names) => `(${names.join('|')})`;

const layerRules = LAYERS.flatMap((layer, level) =>
  layer.map((module) => {
    const above = LAYERS.slice(level + 1).flat();
    const sideways = layer.filter((other) => other !== module && !(SIDEWAYS[module] ?? []).includes(other));
    const forbidden = [...sideways, ...above];
    return {
      name: `layer-${module}`,
      comment: `${module} (L${level}) imports only from lower layers: not from ${forbidden.join(', ')}`,
      severity: 'error',
      from: { path: `^src/${module}/` },
      to: { path: `^src/${alternatives(forbidden)}/` },
    };
  }),
).filter((rule) => !rule.to.path.endsWith('()/'));

module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'index-only',
      comment: "Another module is reached through its index.ts, never one of its files (the module's public surface)",
      severity: 'error',
      from: { path: '^src/([^/]+)' },
      to: {
        path: `^src/${alternatives(INDEXED)}/`,
        pathNot: ['^src/$1/', `^src/${alternatives(INDEXED)}/index\\.ts$`],
      },
    },
    {
      name: 'no-module-cycle',
      comment: 'No import cycle runs through files of different modules',
      severity: 'error',
      from: { path: '^src/([^/]+)/' },
      to: { circular: true, pathNot: '^src/$1/' },
    },
  ],
  options: {
    includeOnly: '^src/',
    // Type-only imports are arrows too: they tie a module to another's shapes.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
