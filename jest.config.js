/**
 * Three layers (README "Tests"): *.spec.ts beside the pure code they test in src/, *.medium.ts in test/medium/
 * that run one service on its real repositories and database without HTTP, and *.e2e.ts in test/ through HTTP.
 * Tests run on the real PostgreSQL: see test/support/global-setup.ts.
 */
module.exports = {
  testEnvironment: 'node',
  rootDir: '.',
  roots: ['<rootDir>/src', '<rootDir>/test'],
  testRegex: '\\.(e2e|spec|int|medium)\\.ts$',
  moduleFileExtensions: ['ts', 'js', 'json'],
  transform: {
    '^.+\\.(t|j)s$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', decorators: true },
          transform: { legacyDecorator: true, decoratorMetadata: true },
          target: 'es2022',
          keepClassNames: true,
        },
        module: { type: 'commonjs' },
      },
    ],
  },
  transformIgnorePatterns: ['/node_modules/(?!(@nestjs|cookie|content-disposition)/)'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 60000,
  // One test file at a time (they share the machine's PostgreSQL), in a worker process that is replaced once it
  // holds more than this after a file: one process for the whole suite grew past Node's 4 GB heap limit.
  maxWorkers: 1,
  workerIdleMemoryLimit: '1GB',
};
