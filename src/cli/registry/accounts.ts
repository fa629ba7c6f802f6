import type { AuthTable, StaffService } from '../../auth';
import { isStaffRole, STAFF_ROLES, StaffRole } from '../../common/permissions';
import type { RequestContext } from '../../common/request-context';
import { CommandError } from '../command-errors';
import { readPassword } from '../command-input';
import { APP, CommandHost, defineCommand, FlagSpec } from '../command-spec';

// The accounts of an app: any account's password, and the staff (core_users accounts) with their roles.

const USER_FLAGS: FlagSpec[] = [
  APP,
  { name: 'email', value: 'EMAIL', help: 'the login email' },
  { name: 'password', value: 'PASSWORD', help: 'the password (8+ characters, upper, lower, digit, one of @$!%*?&)' },
  { name: 'password-stdin', help: 'read the password from standard input instead (keeps it out of the process list)' },
  { name: 'table', value: 'TABLE', help: 'core_users (default: administrative accounts), core_customers or core_app_users' },
];
const TABLES = ['core_users', 'core_customers', 'core_app_users'];

const accountChecks = () => require('../user.service') as typeof import('../user.service');

/** Reads the password and checks what needs no database, so that a refused command opens nothing and writes nothing. */
async function checkedPassword(email: string, source: Parameters<typeof readPassword>[0], checkEmail: boolean): Promise<string> {
  const password = await readPassword(source);
  const { checkEmail: emailCheck, checkPassword } = accountChecks();
  if (checkEmail) emailCheck(email);
  checkPassword(password);
  return password;
}

export const ACCOUNT_COMMANDS = [
  defineCommand({
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
    parse: (args) => {
      const appId = args.app();
      const email = args.required('email');
      const password = args.password();
      const table = args.text('table') ?? 'core_users';
      if (!TABLES.includes(table)) args.fail(`--table must be core_users, core_customers or core_app_users (got "${table}")`);
      const role = args.text('role');
      if (role !== undefined && table !== 'core_users') args.fail('--role applies to core_users only');
      if (role !== undefined && !/^[A-Za-z][A-Za-z0-9_-]{0,49}$/.test(role))
        args.fail(`--role must be a word of letters, digits, - and _ (at most 50; got "${role}")`);
      return {
        appId,
        email,
        password,
        table: table as AuthTable,
        role,
        firstname: args.text('firstname'),
        lastname: args.text('lastname'),
      };
    },
    run: async (input, host) => {
      const password = await checkedPassword(input.email, input.password, true);
      const { edge, users } = await host.services();
      const account = accountChecks().checkNewAccount({ ...input, password });
      const ctx = await edge.appContext(input.appId);
      return edge.write(ctx, () => users.create(ctx, account));
    },
  }),
  defineCommand({
    name: 'user:password',
    summary: "set or reset an account's password (tokens and reset links issued before it stop working)",
    synopsis: '--app ID --email EMAIL (--password PASSWORD | --password-stdin) [--table TABLE]',
    flags: USER_FLAGS,
    parse: (args) => {
      const appId = args.app();
      const email = args.required('email');
      const password = args.password();
      const table = args.text('table') ?? 'core_users';
      if (!TABLES.includes(table)) args.fail(`--table must be core_users, core_customers or core_app_users (got "${table}")`);
      return { appId, email, password, table: table as AuthTable };
    },
    run: async (input, host) => {
      const password = await checkedPassword(input.email, input.password, false);
      const { edge, users } = await host.services();
      const ctx = await edge.appContext(input.appId);
      return edge.write(ctx, () => users.setPassword(ctx, { table: input.table, email: input.email, password }));
    },
  }),
  defineCommand({
    name: 'staff:list',
    summary: "list an app's staff (core_users accounts) with their roles; prints { appID, staff }",
    synopsis: '--app ID',
    flags: [APP],
    parse: (args) => ({ appId: args.app() }),
    run: async ({ appId }, host) => {
      const { edge, staff } = await host.services();
      const ctx = await edge.appContext(appId);
      return { appID: ctx.appId, staff: await staff.list(ctx) };
    },
  }),
  defineCommand({
    name: 'staff:roles',
    summary: "set a staff member's roles (exactly these; the app keeps one owner); prints the member",
    synopsis: '--app ID --email EMAIL --roles ROLE[,ROLE…]',
    flags: [
      APP,
      { name: 'email', value: 'EMAIL', help: "the member's login email (a core_users account of the app)" },
      { name: 'roles', value: 'ROLES', help: 'comma-separated: owner, orders, content, support, viewer ("" for none)' },
    ],
    parse: (args) => {
      if (args.text('roles') === undefined) args.fail('--roles is required ("" for none)');
      const roles = args
        .text('roles')!
        .split(',')
        .map((role) => role.trim())
        .filter(Boolean);
      const unknown = roles.filter((role) => !isStaffRole(role));
      if (unknown.length) args.fail(`--roles must name only ${STAFF_ROLES.join(', ')} (got "${unknown.join(', ')}")`);
      if (new Set(roles).size !== roles.length) args.fail('--roles must not repeat a role');
      return { appId: args.app(), email: args.required('email'), roles: roles as StaffRole[] };
    },
    run: ({ appId, email, roles }, host) => changeStaff(host, appId, email, (staff, ctx, userId) => staff.setRoles(ctx, userId, roles)),
  }),
  defineCommand({
    name: 'staff:remove',
    summary: 'remove a staff member: no roles, no password, every token void at once (the app keeps one owner); prints the member',
    synopsis: '--app ID --email EMAIL',
    flags: [APP, { name: 'email', value: 'EMAIL', help: "the member's login email" }],
    parse: (args) => ({ appId: args.app(), email: args.required('email') }),
    run: ({ appId, email }, host) => changeStaff(host, appId, email, (staff, ctx, userId) => staff.remove(ctx, userId)),
  }),
];

/** Changes the staff member `email` of app `appId` in the command's one transaction; CommandError when there is none. */
async function changeStaff<T>(
  host: CommandHost,
  appId: number,
  email: string,
  change: (staff: StaffService, ctx: RequestContext, userId: number) => Promise<T>,
): Promise<T> {
  const { edge, staff } = await host.services();
  const ctx = await edge.appContext(appId);
  return edge.write(ctx, async () => {
    const userId = await staff.idOf(ctx, email);
    if (userId === null) throw new CommandError(`No staff member ${email} in app ${appId}`);
    return change(staff, ctx, userId);
  });
}
