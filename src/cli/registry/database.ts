import { readFixture } from '../command-input';
import { defineCommand } from '../command-spec';

// The database's own commands: its migrations and the fixtures loaded into it.

const migrations = () => require('../migrations') as typeof import('../migrations');

export const DATABASE_COMMANDS = [
  defineCommand({
    name: 'migrate',
    summary: 'apply pending migrations; prints { applied }',
    synopsis: '',
    flags: [],
    parse: () => ({}),
    run: async (_options, host) => ({ applied: await host.migrate() }),
  }),
  defineCommand({
    name: 'migrate:status',
    summary: 'migrations applied and pending; prints { applied, pending, unknown }',
    synopsis: '',
    flags: [],
    parse: () => ({}),
    run: async (_options, host) => migrations().migrationStatus(await host.database()),
  }),
  defineCommand({
    name: 'migrate:revert',
    summary: 'undo the last applied migration(s) in one transaction; prints { reverted }. The service re-applies them at its next start',
    synopsis: '[--count N]',
    flags: [{ name: 'count', value: 'N', help: 'how many, newest first (default 1)' }],
    parse: (args) => {
      const count = args.id('count') ?? 1;
      if (count > 1000) args.fail('--count must be at most 1000');
      return { count };
    },
    run: async ({ count }, host) => migrations().revertMigrations(await host.database(), count),
  }),
  defineCommand({
    name: 'seed',
    args: 'FILE.json',
    summary: 'load a tenant fixture, all or nothing; prints { appID, ids }',
    synopsis: '',
    flags: [],
    parse: (args) => {
      if (args.positionals.length !== 1) args.fail('seed takes one FILE.json');
      return { file: args.positionals[0] };
    },
    run: async ({ file }, host) => {
      const fixture = readFixture(file);
      return (await host.services()).edge.seed(fixture);
    },
  }),
  defineCommand({
    name: 'tenants:seed',
    summary:
      'seed many tenants in one process and one transaction (load tests, capacity planning), each with an admin, customers, ' +
      'published products, mail templates and orders; prints { tenants, rows, seconds, apps }',
    synopsis: '--count N [--products N] [--customers N] [--orders N] [--prefix NAME] [--password PASSWORD]',
    flags: [
      { name: 'count', value: 'N', help: 'how many tenants (at most 100000)' },
      { name: 'products', value: 'N', help: 'published products per tenant (default 10)' },
      { name: 'customers', value: 'N', help: 'customers per tenant (default 5)' },
      { name: 'orders', value: 'N', help: "orders per tenant, each of one or two items, 3 of 4 Paid (default 20; customers' in turn)" },
      { name: 'prefix', value: 'NAME', help: 'names the tenants <NAME> <n> at <NAME>-<n>.example.test (default tenant)' },
      { name: 'password', value: 'PASSWORD', help: "every account's password, hashed once (default: none, no account can sign in)" },
    ],
    parse: (args) => {
      const count = args.id('count', args.required('count'))!;
      if (count > 100_000) args.fail('--count must be at most 100000');
      const size = (flag: string, fallback: number): number => {
        const value = args.text(flag) ?? String(fallback);
        if (!/^\d{1,4}$/.test(value.trim()) || Number(value) > 1000)
          args.fail(`--${flag} must be a whole number from 0 to 1000 (got "${value}")`);
        return Number(value);
      };
      const prefix = args.text('prefix') ?? 'tenant';
      if (!/^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/.test(prefix))
        args.fail(`--prefix must be lower-case letters, digits and inner dashes, at most 40 (got "${prefix}")`);
      const password = args.text('password');
      if (password !== undefined && password.trim() === '') args.fail('--password must not be empty');
      return { count, products: size('products', 10), customers: size('customers', 5), orders: size('orders', 20), prefix, password };
    },
    run: async (plan, host) => {
      // Checked before the database opens: a refused command opens nothing and writes nothing.
      if (plan.password !== undefined) (require('../user.service') as typeof import('../user.service')).checkPassword(plan.password);
      const { edge, tenantsSeed } = await host.services();
      const ctx = edge.context();
      return edge.write(ctx, () => tenantsSeed.seed(ctx, plan));
    },
  }),
];
