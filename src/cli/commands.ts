import { parseArgs } from 'node:util';
import { isStaffRole, STAFF_ROLES, StaffRole } from '../common/permissions';
// Loaded for every command, `--help` included: node built-ins and the role table (a module without imports). Nest, TypeORM and the service's modules
// are loaded by ./run-command once the input is known to be good (cli.ts).

/** Bad input: the command line itself is wrong. Exit code 2, nothing is opened or written. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose synopsis is shown with the message; none: the general usage line. */
    readonly command?: CommandSpec,
  ) {
    super(message);
  }
}

interface FlagSpec {
  name: string;
  /** Placeholder of the value; none: a switch. */
  value?: string;
  help: string;
}

export interface CommandSpec {
  name: string;
  /** Positional arguments, as shown. */
  args?: string;
  summary: string;
  /** Flags, in the order shown; a group in brackets is optional. */
  synopsis: string;
  flags: FlagSpec[];
  /** Whether the command reaches the database (and so DATABASE_URL or the embedded database in DATA_DIR). */
  database: boolean;
}

/** core_sites columns `tenant:update` sets, each as `--<column with dashes>`; the secrets among them are never printed. */
export const TENANT_COLUMNS: { column: string; help: string }[] = [
  { column: 'name', help: 'display name' },
  { column: 'domain', help: 'the domain that names the app (unique, lower-cased)' },
  { column: 'email_from', help: 'sender of the app\'s mails, `a@b` or `Name <a@b>` ("" clears)' },
  { column: 'disable_email', help: 'true: the app sends no notification mails' },
  { column: 'email_cc', help: 'core_users id copied on every notification ("" clears)' },
  { column: 'email_bcc', help: 'core_users id blind-copied on every notification ("" clears)' },
  { column: 'currency', help: 'the one currency the app charges in, ISO 4217 (e.g. aud, eur)' },
  { column: 'payment_test_mode', help: 'true: a test app, paying in test mode on a production instance' },
  { column: 'payment_test_private_key', help: 'secret, sk_test_… or rk_test_… ("" clears)' },
  { column: 'payment_live_private_key', help: 'secret, sk_live_… or rk_live_… ("" clears)' },
  { column: 'payment_webhook_secret', help: 'secret, whsec_… ("" clears)' },
  { column: 'payment_test_public_key', help: 'pk_test_… ("" clears)' },
  { column: 'payment_live_public_key', help: 'pk_live_… ("" clears)' },
  { column: 'logo', help: 'logo URL or path ("" clears)' },
  { column: 'splash_logo', help: 'splash logo URL or path ("" clears)' },
  { column: 'background', help: 'background colour ("" clears)' },
  { column: 'colour1', help: 'first brand colour ("" clears)' },
  { column: 'colour2', help: 'second brand colour ("" clears)' },
  { column: 'idp_app_callback_url', help: 'SSO: the app\'s callback page ("" clears)' },
  { column: 'oauth_callback_url', help: 'SSO: fallback callback page ("" clears)' },
  { column: 'auth_callback_url', help: 'SSO: second fallback callback page ("" clears)' },
  { column: 'idp_app_logout_url', help: 'SSO: the app\'s signed-out page ("" clears)' },
  { column: 'oauth_logout_url', help: 'SSO: fallback signed-out page ("" clears)' },
  { column: 'auth_logout_url', help: 'SSO: second fallback signed-out page ("" clears)' },
  { column: 'vapid_subject', help: 'web push contact, mailto: or https: URL ("" clears)' },
  { column: 'notification_sql_enabled', help: 'true: /message/notification may merge from SQL' },
];

export const flagOf = (column: string) => column.replace(/_/g, '-');

const APP: FlagSpec = { name: 'app', value: 'ID', help: 'the app (core_sites id)' };
const USER_FLAGS: FlagSpec[] = [
  APP,
  { name: 'email', value: 'EMAIL', help: 'the login email' },
  { name: 'password', value: 'PASSWORD', help: 'the password (8+ characters, upper, lower, digit, one of @$!%*?&)' },
  { name: 'password-stdin', help: 'read the password from standard input instead (keeps it out of the process list)' },
  { name: 'table', value: 'TABLE', help: 'core_users (default: administrative accounts), core_customers or core_app_users' },
];

export const COMMANDS: CommandSpec[] = [
  { name: 'migrate', summary: 'apply pending migrations; prints { applied }', synopsis: '', flags: [], database: true },
  {
    name: 'migrate:status',
    summary: 'migrations applied and pending; prints { applied, pending, unknown }',
    synopsis: '',
    flags: [],
    database: true,
  },
  {
    name: 'migrate:revert',
    summary: 'undo the last applied migration(s) in one transaction; prints { reverted }. The service re-applies them at its next start',
    synopsis: '[--count N]',
    flags: [{ name: 'count', value: 'N', help: 'how many, newest first (default 1)' }],
    database: true,
  },
  {
    name: 'seed',
    args: 'FILE.json',
    summary: 'load a tenant fixture, all or nothing; prints { appID, ids }',
    synopsis: '',
    flags: [],
    database: true,
  },
  {
    name: 'tenants:seed',
    summary:
      'seed many tenants in one process and one transaction (load tests, capacity planning), each with an admin, customers, published products, mail templates and orders; prints { tenants, rows, seconds, apps }',
    synopsis: '--count N [--products N] [--customers N] [--orders N] [--prefix NAME] [--password PASSWORD]',
    flags: [
      { name: 'count', value: 'N', help: 'how many tenants (at most 100000)' },
      { name: 'products', value: 'N', help: 'published products per tenant (default 10)' },
      { name: 'customers', value: 'N', help: 'customers per tenant (default 5)' },
      { name: 'orders', value: 'N', help: "orders per tenant, each of one or two items, 3 of 4 Paid (default 20; customers' in turn)" },
      { name: 'prefix', value: 'NAME', help: 'names the tenants <NAME> <n> at <NAME>-<n>.example.test (default tenant)' },
      { name: 'password', value: 'PASSWORD', help: "every account's password, hashed once (default: none, no account can sign in)" },
    ],
    database: true,
  },
  {
    name: 'tenant:create',
    summary: 'create a tenant with generated keys; prints its JSON',
    synopsis: '--name NAME --domain DOMAIN',
    flags: [
      { name: 'name', value: 'NAME', help: 'display name' },
      { name: 'domain', value: 'DOMAIN', help: 'the domain that names the app' },
    ],
    database: true,
  },
  {
    name: 'tenant:list',
    summary: 'list tenants, secret columns left out (secrets_set names those that hold a value)',
    synopsis: '[--app ID]',
    flags: [{ ...APP, help: 'only this app' }],
    database: true,
  },
  {
    name: 'tenant:update',
    summary: 'change columns of a tenant; prints it (secrets left out) and the columns changed',
    synopsis: '--app ID [--COLUMN VALUE …]',
    flags: [APP, ...TENANT_COLUMNS.map(({ column, help }) => ({ name: flagOf(column), value: 'VALUE', help }))],
    database: true,
  },
  {
    name: 'user:create',
    summary:
      'create an account of an app (an admin with --role admin); the password is checked by the password policy and stored as bcrypt',
    synopsis:
      '--app ID --email EMAIL (--password PASSWORD | --password-stdin) [--role ROLE] [--table TABLE] [--firstname F] [--lastname L]',
    flags: [
      ...USER_FLAGS,
      { name: 'role', value: 'ROLE', help: 'core_users primary_role: admin administers the app (default user)' },
      { name: 'firstname', value: 'NAME', help: 'first name' },
      { name: 'lastname', value: 'NAME', help: 'last name' },
    ],
    database: true,
  },
  {
    name: 'user:password',
    summary: "set or reset an account's password (tokens and reset links issued before it stop working)",
    synopsis: '--app ID --email EMAIL (--password PASSWORD | --password-stdin) [--table TABLE]',
    flags: USER_FLAGS,
    database: true,
  },
  {
    name: 'staff:list',
    summary: "list an app's staff (core_users accounts) with their roles; prints { appID, staff }",
    synopsis: '--app ID',
    flags: [APP],
    database: true,
  },
  {
    name: 'staff:roles',
    summary: "set a staff member's roles (exactly these; the app keeps one owner); prints the member",
    synopsis: '--app ID --email EMAIL --roles ROLE[,ROLE…]',
    flags: [
      APP,
      { name: 'email', value: 'EMAIL', help: "the member's login email (a core_users account of the app)" },
      { name: 'roles', value: 'ROLES', help: 'comma-separated: owner, orders, content, support, viewer ("" for none)' },
    ],
    database: true,
  },
  {
    name: 'staff:remove',
    summary: 'remove a staff member: no roles, no password, every token void at once (the app keeps one owner); prints the member',
    synopsis: '--app ID --email EMAIL',
    flags: [APP, { name: 'email', value: 'EMAIL', help: "the member's login email" }],
    database: true,
  },
  {
    name: 'mail:failed',
    summary: "list an app's outbox mails that failed for good (newest first); prints { appID, total, mails }",
    synopsis: '--app ID [--limit N]',
    flags: [APP, { name: 'limit', value: 'N', help: 'at most this many (default 50)' }],
    database: true,
  },
  {
    name: 'mail:retry',
    summary: 'put failed mails back in the outbox; the running service sends them at once; prints { retried }',
    synopsis: '--id N [--app ID] | --app ID --all',
    flags: [
      { name: 'id', value: 'N', help: 'one mail (core_notification_log id)' },
      APP,
      { name: 'all', help: 'every failed mail of the app' },
    ],
    database: true,
  },
  {
    name: 'events:failed',
    summary:
      "list an app's payment provider events that failed for good after PAYMENT_EVENTS_MAX_ATTEMPTS tries (newest first); prints { appID, total, events }",
    synopsis: '--app ID [--limit N]',
    flags: [APP, { name: 'limit', value: 'N', help: 'at most this many (default 50)' }],
    database: true,
  },
  {
    name: 'events:retry',
    summary:
      'put failed payment events back in the inbox; the running service applies them within PAYMENT_EVENTS_POLL_MS; prints { appID, retried }',
    synopsis: '--app ID (--id EVENT_ID | --all)',
    flags: [
      APP,
      { name: 'id', value: 'EVENT_ID', help: "one event (the provider's event id, evt_…)" },
      { name: 'all', help: 'every failed event of the app' },
    ],
    database: true,
  },
  {
    name: 'secrets:generate',
    summary: 'new secrets as .env lines (JWT, ENCRYPTION_*, IDP_COOKIE_PASSWORD, VAPID_*); no database',
    synopsis: '[--json]',
    flags: [{ name: 'json', help: 'print them as one JSON object instead' }],
    database: false,
  },
  {
    name: 'payment:double',
    summary: "run a local double of the payment provider's API (development); no database",
    synopsis: '[--port 12111] [--host 127.0.0.1] [--webhook-url URL --webhook-secret SECRET]',
    flags: [
      { name: 'port', value: 'PORT', help: 'listen port (default 12111)' },
      { name: 'host', value: 'HOST', help: 'listen address (default 127.0.0.1)' },
      {
        name: 'webhook-url',
        value: 'URL',
        help: 'where the provider’s events are delivered (payment_intent.succeeded, .payment_failed, .canceled, charge.refunded)',
      },
      { name: 'webhook-secret', value: 'SECRET', help: 'signs those announcements' },
    ],
    database: false,
  },
];

const PREFIX = 'npm run cli --';

export function synopsisOf(spec: CommandSpec): string {
  return [spec.name, spec.args, spec.synopsis].filter(Boolean).join(' ');
}

/** The whole help text: every command with its flags. */
export function usage(): string {
  const lines = [
    `Usage: ${PREFIX} <command> [flags]   (also: node dist/src/cli.js, node bin/cli.js)`,
    '',
    'Commands reach DATABASE_URL, else the embedded database in DATA_DIR (refused while the server runs on it).',
    'Success prints JSON on stdout; a failure prints { "status": "Failed", "message" } on stderr, exit 1 (2 for a usage error), and writes nothing.',
    '',
  ];
  for (const spec of COMMANDS) {
    lines.push(`  ${synopsisOf(spec)}`, `      ${spec.summary}`);
    for (const flag of spec.name === 'tenant:update' ? spec.flags.slice(0, 1) : spec.flags) {
      lines.push(`      --${flag.name}${flag.value ? ` ${flag.value}` : ''}`.padEnd(40) + flag.help);
    }
    if (spec.name === 'tenant:update') {
      lines.push('      COLUMN, one or more of:');
      for (const flag of spec.flags.slice(1)) lines.push(`        --${flag.name}`.padEnd(40) + flag.help);
    }
    lines.push('');
  }
  lines.push(`  ${PREFIX} <command> --help shows one command.`);
  return lines.join('\n');
}

/** One command's help. */
export function commandUsage(spec: CommandSpec): string {
  const lines = [`Usage: ${PREFIX} ${synopsisOf(spec)}`, `  ${spec.summary}`];
  for (const flag of spec.flags) lines.push(`  --${flag.name}${flag.value ? ` ${flag.value}` : ''}`.padEnd(38) + flag.help);
  return lines.join('\n');
}

/** The synopsis line shown under a usage error. */
export function usageLine(spec?: CommandSpec): string {
  return spec ? `Usage: ${PREFIX} ${synopsisOf(spec)}` : `Usage: ${PREFIX} <command> [flags]; ${PREFIX} --help lists every command`;
}

export type Parsed =
  | { command: 'help'; text: string }
  | { command: 'migrate' }
  | { command: 'migrate:status' }
  | { command: 'migrate:revert'; count: number }
  | { command: 'seed'; file: string }
  | { command: 'tenants:seed'; count: number; products: number; customers: number; orders: number; prefix: string; password?: string }
  | { command: 'tenant:create'; name: string; domain: string }
  | { command: 'tenant:list'; appId: number | null }
  | { command: 'tenant:update'; appId: number; changes: Record<string, string> }
  | {
      command: 'user:create';
      appId: number;
      email: string;
      password: PasswordSource;
      table: string;
      role?: string;
      firstname?: string;
      lastname?: string;
    }
  | { command: 'user:password'; appId: number; email: string; password: PasswordSource; table: string }
  | { command: 'staff:list'; appId: number }
  | { command: 'staff:roles'; appId: number; email: string; roles: StaffRole[] }
  | { command: 'staff:remove'; appId: number; email: string }
  | { command: 'mail:failed'; appId: number; limit: number }
  | { command: 'mail:retry'; id?: number; appId?: number; all: boolean }
  | { command: 'events:failed'; appId: number; limit: number }
  | { command: 'events:retry'; appId: number; id?: string }
  | { command: 'secrets:generate'; json: boolean }
  | { command: 'payment:double'; port: number; host: string; webhook?: { url: string; secret: string } };

/** A password given on the command line, or to be read from standard input. */
export type PasswordSource = { value: string } | { stdin: true };

/** Reads argv into one command and its checked input; UsageError when the command line is wrong. */
export function parseCommand(argv: string[]): Parsed {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') return { command: 'help', text: usage() };
  const spec = COMMANDS.find((command) => command.name === name);
  if (!spec) throw new UsageError(`Unknown command "${name}"`);
  if (rest.includes('--help') || rest.includes('-h')) return { command: 'help', text: commandUsage(spec) };

  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    const options = Object.fromEntries(
      spec.flags.map((flag) => [flag.name, { type: flag.value ? ('string' as const) : ('boolean' as const) }]),
    );
    ({ values, positionals } = parseArgs({ args: rest, options, strict: true, allowPositionals: Boolean(spec.args) }));
  } catch (error) {
    throw new UsageError(`${name}: ${(error as Error).message.split('\n')[0].replace(/\. To specify a positional argument.*$/, '')}`, spec);
  }
  const fail = (message: string): never => {
    throw new UsageError(`${name}: ${message}`, spec);
  };
  const text = (flag: string): string | undefined => values[flag] as string | undefined;
  const required = (flag: string): string => {
    const value = text(flag);
    if (value === undefined || value.trim() === '') fail(`--${flag} is required`);
    return value!;
  };
  const id = (flag: string, value = text(flag)): number | undefined => {
    if (value === undefined) return undefined;
    if (!/^\d{1,10}$/.test(value.trim()) || Number(value) < 1 || Number(value) > 2_147_483_647)
      fail(`--${flag} must be a positive integer (got "${value}")`);
    return Number(value);
  };
  const password = (): PasswordSource => {
    const given = text('password');
    if (given !== undefined && values['password-stdin']) fail('give --password or --password-stdin, not both');
    if (given === undefined && !values['password-stdin']) fail('--password or --password-stdin is required');
    return given !== undefined ? { value: given } : { stdin: true };
  };

  switch (spec.name) {
    case 'migrate':
      return { command: 'migrate' };
    case 'migrate:status':
      return { command: 'migrate:status' };
    case 'migrate:revert': {
      const count = id('count') ?? 1;
      if (count > 1000) fail('--count must be at most 1000');
      return { command: 'migrate:revert', count };
    }
    case 'seed':
      if (positionals.length !== 1) fail('seed takes one FILE.json');
      return { command: 'seed', file: positionals[0] };
    case 'tenants:seed': {
      const count = id('count', required('count'))!;
      if (count > 100_000) fail('--count must be at most 100000');
      const size = (flag: string, fallback: number): number => {
        const value = text(flag) ?? String(fallback);
        if (!/^\d{1,4}$/.test(value.trim()) || Number(value) > 1000)
          fail(`--${flag} must be a whole number from 0 to 1000 (got "${value}")`);
        return Number(value);
      };
      const prefix = text('prefix') ?? 'tenant';
      if (!/^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/.test(prefix))
        fail(`--prefix must be lower-case letters, digits and inner dashes, at most 40 (got "${prefix}")`);
      const password = text('password');
      if (password !== undefined && password.trim() === '') fail('--password must not be empty');
      return {
        command: 'tenants:seed',
        count,
        products: size('products', 10),
        customers: size('customers', 5),
        orders: size('orders', 20),
        prefix,
        password,
      };
    }
    case 'tenant:create':
      if (!text('name')?.trim() || !text('domain')?.trim()) fail('tenant:create needs --name and --domain');
      return { command: 'tenant:create', name: text('name')!, domain: text('domain')! };
    case 'tenant:list':
      return { command: 'tenant:list', appId: id('app') ?? null };
    case 'tenant:update': {
      const appId = id('app', required('app'))!;
      const changes: Record<string, string> = {};
      for (const { column } of TENANT_COLUMNS) {
        const value = text(flagOf(column));
        if (value !== undefined) changes[column] = value;
      }
      if (Object.keys(changes).length === 0) fail('nothing to change: give at least one --COLUMN VALUE (see --help)');
      return { command: 'tenant:update', appId, changes };
    }
    case 'user:create':
    case 'user:password': {
      const appId = id('app', required('app'))!;
      const email = required('email');
      const pass = password();
      const table = text('table') ?? 'core_users';
      if (!['core_users', 'core_customers', 'core_app_users'].includes(table))
        fail(`--table must be core_users, core_customers or core_app_users (got "${table}")`);
      if (spec.name === 'user:password') return { command: 'user:password', appId, email, password: pass, table };
      const role = text('role');
      if (role !== undefined && table !== 'core_users') fail('--role applies to core_users only');
      if (role !== undefined && !/^[A-Za-z][A-Za-z0-9_-]{0,49}$/.test(role))
        fail(`--role must be a word of letters, digits, - and _ (at most 50; got "${role}")`);
      return {
        command: 'user:create',
        appId,
        email,
        password: pass,
        table,
        role,
        firstname: text('firstname'),
        lastname: text('lastname'),
      };
    }
    case 'staff:list':
      return { command: 'staff:list', appId: id('app', required('app'))! };
    case 'staff:roles': {
      if (text('roles') === undefined) fail('--roles is required ("" for none)');
      const roles = text('roles')!
        .split(',')
        .map((role) => role.trim())
        .filter(Boolean);
      const unknown = roles.filter((role) => !isStaffRole(role));
      if (unknown.length) fail(`--roles must name only ${STAFF_ROLES.join(', ')} (got "${unknown.join(', ')}")`);
      if (new Set(roles).size !== roles.length) fail('--roles must not repeat a role');
      return { command: 'staff:roles', appId: id('app', required('app'))!, email: required('email'), roles: roles as StaffRole[] };
    }
    case 'staff:remove':
      return { command: 'staff:remove', appId: id('app', required('app'))!, email: required('email') };
    case 'mail:failed': {
      const limit = id('limit') ?? 50;
      if (limit > 10_000) fail('--limit must be at most 10000');
      return { command: 'mail:failed', appId: id('app', required('app'))!, limit };
    }
    case 'mail:retry': {
      const mailId = id('id');
      const appId = id('app');
      const all = values.all === true;
      if (mailId !== undefined && all) fail('give --id N or --app ID --all, not both');
      if (mailId === undefined && !all) fail('give --id N (one mail) or --app ID --all (every failed mail of the app)');
      if (all && appId === undefined) fail('--all needs --app ID');
      return { command: 'mail:retry', id: mailId, appId, all };
    }
    case 'events:failed': {
      const limit = id('limit') ?? 50;
      if (limit > 10_000) fail('--limit must be at most 10000');
      return { command: 'events:failed', appId: id('app', required('app'))!, limit };
    }
    case 'events:retry': {
      const eventId = text('id');
      const all = values.all === true;
      if (eventId !== undefined && all) fail('give --id EVENT_ID or --all, not both');
      if (eventId === undefined && !all) fail('give --id EVENT_ID (one event) or --all (every failed event of the app)');
      if (eventId !== undefined && !/^[\x21-\x7e]{1,255}$/.test(eventId)) fail('--id must be an event id (evt_…)');
      return { command: 'events:retry', appId: id('app', required('app'))!, id: eventId };
    }
    case 'secrets:generate':
      return { command: 'secrets:generate', json: values.json === true };
    case 'payment:double': {
      const port = Number(text('port') ?? '12111');
      if (!/^\d+$/.test(text('port') ?? '12111') || port > 65535) fail('--port must be a port number');
      if (!text('webhook-url') !== !text('webhook-secret')) fail('--webhook-url and --webhook-secret go together');
      const webhook = text('webhook-url') ? { url: text('webhook-url')!, secret: text('webhook-secret')! } : undefined;
      return { command: 'payment:double', port, host: text('host') ?? '127.0.0.1', webhook };
    }
  }
  return fail('not implemented');
}

/** A command that could not do its work (an unknown app, a taken email, a weak password…): exit code 1, nothing written. */
export class CommandError extends Error {}
