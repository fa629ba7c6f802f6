import { APP, defineCommand } from '../command-spec';
import { flagOf, TENANT_COLUMNS } from '../tenant-columns';

// The tenants (core_sites rows): made, listed and changed by the operator.

export const TENANT_COMMANDS = [
  defineCommand({
    name: 'tenant:create',
    summary: 'create a tenant with generated keys; prints its JSON',
    synopsis: '--name NAME --domain DOMAIN',
    flags: [
      { name: 'name', value: 'NAME', help: 'display name' },
      { name: 'domain', value: 'DOMAIN', help: 'the domain that names the app' },
    ],
    parse: (args) => {
      if (!args.text('name')?.trim() || !args.text('domain')?.trim()) args.fail('tenant:create needs --name and --domain');
      return { name: args.text('name')!, domain: args.text('domain')! };
    },
    run: async ({ name, domain }, host) => {
      const { edge, tenants } = await host.services();
      const ctx = edge.context();
      return edge.write(ctx, () => tenants.create(ctx, name, domain));
    },
  }),
  defineCommand({
    name: 'tenant:list',
    summary: 'list tenants, secret columns left out (secrets_set names those that hold a value)',
    synopsis: '[--app ID]',
    flags: [{ ...APP, help: 'only this app' }],
    parse: (args) => ({ appId: args.id('app') ?? null }),
    run: async ({ appId }, host) => {
      const { edge, tenants } = await host.services();
      return tenants.list(edge.context(), appId);
    },
  }),
  defineCommand({
    name: 'tenant:update',
    summary: 'change columns of a tenant; prints it (secrets left out) and the columns changed',
    synopsis: '--app ID [--COLUMN VALUE …]',
    flags: [APP],
    grouped: {
      heading: 'COLUMN, one or more of:',
      flags: TENANT_COLUMNS.map(({ column, help }) => ({ name: flagOf(column), value: 'VALUE', help })),
    },
    parse: (args) => {
      const appId = args.app();
      const changes: Record<string, string> = {};
      for (const { column } of TENANT_COLUMNS) {
        const value = args.text(flagOf(column));
        if (value !== undefined) changes[column] = value;
      }
      if (Object.keys(changes).length === 0) args.fail('nothing to change: give at least one --COLUMN VALUE (see --help)');
      return { appId, changes };
    },
    run: async ({ appId, changes }, host) => {
      const { edge, tenants } = await host.services();
      const ctx = await edge.appContext(appId);
      return edge.write(ctx, () => tenants.update(ctx, changes));
    },
  }),
];
