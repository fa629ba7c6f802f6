import { CommandError } from '../command-errors';
import { APP, defineCommand } from '../command-spec';

// What failed for good and waits for the operator: the outbox's mails and the payment provider's events.

const LIMIT = { name: 'limit', value: 'N', help: 'at most this many (default 50)' };

export const FAILED_WORK_COMMANDS = [
  defineCommand({
    name: 'mail:failed',
    summary: "list an app's outbox mails that failed for good (newest first); prints { appID, total, mails }",
    synopsis: '--app ID [--limit N]',
    flags: [APP, LIMIT],
    parse: (args) => {
      const limit = args.id('limit') ?? 50;
      if (limit > 10_000) args.fail('--limit must be at most 10000');
      return { appId: args.app(), limit };
    },
    run: async ({ appId, limit }, host) => {
      const { edge, outbox } = await host.services();
      return outbox.listFailed(await edge.appContext(appId), limit);
    },
  }),
  defineCommand({
    name: 'mail:retry',
    summary: 'put failed mails back in the outbox; the running service sends them at once; prints { retried }',
    synopsis: '--id N [--app ID] | --app ID --all',
    flags: [
      { name: 'id', value: 'N', help: 'one mail (core_notification_log id)' },
      APP,
      { name: 'all', help: 'every failed mail of the app' },
    ],
    parse: (args) => {
      const id = args.id('id');
      const appId = args.id('app');
      const all = args.given('all');
      if (id !== undefined && all) args.fail('give --id N or --app ID --all, not both');
      if (id === undefined && !all) args.fail('give --id N (one mail) or --app ID --all (every failed mail of the app)');
      if (all && appId === undefined) args.fail('--all needs --app ID');
      return { id, appId };
    },
    run: async ({ id, appId }, host) => {
      const { edge, outbox } = await host.services();
      // With --id the mail names its app (an --app given too is checked against it, not looked up).
      const ctx = id === undefined ? await edge.appContext(appId!) : edge.context();
      return edge.write(ctx, () => outbox.retry(ctx, { id, appId }));
    },
  }),
  defineCommand({
    name: 'events:failed',
    summary:
      "list an app's payment provider events that failed for good after PAYMENT_EVENTS_MAX_ATTEMPTS tries (newest first); prints { appID, total, events }",
    synopsis: '--app ID [--limit N]',
    flags: [APP, LIMIT],
    parse: (args) => {
      const limit = args.id('limit') ?? 50;
      if (limit > 10_000) args.fail('--limit must be at most 10000');
      return { appId: args.app(), limit };
    },
    run: async ({ appId, limit }, host) => {
      const { edge, paymentEvents } = await host.services();
      const ctx = await edge.appContext(appId);
      return { appID: ctx.appId, ...(await paymentEvents.failed(ctx, limit)) };
    },
  }),
  defineCommand({
    name: 'events:retry',
    summary:
      'put failed payment events back in the inbox; the running service applies them within PAYMENT_EVENTS_POLL_MS; prints { appID, retried }',
    synopsis: '--app ID (--id EVENT_ID | --all)',
    flags: [
      APP,
      { name: 'id', value: 'EVENT_ID', help: "one event (the provider's event id, evt_…)" },
      { name: 'all', help: 'every failed event of the app' },
    ],
    parse: (args) => {
      const id = args.text('id');
      const all = args.given('all');
      if (id !== undefined && all) args.fail('give --id EVENT_ID or --all, not both');
      if (id === undefined && !all) args.fail('give --id EVENT_ID (one event) or --all (every failed event of the app)');
      if (id !== undefined && !/^[\x21-\x7e]{1,255}$/.test(id)) args.fail('--id must be an event id (evt_…)');
      return { appId: args.app(), id };
    },
    run: async ({ appId, id }, host) => {
      const { edge, paymentEvents } = await host.services();
      const ctx = await edge.appContext(appId);
      const retried = await edge.write(ctx, () => paymentEvents.retry(ctx, id));
      if (id !== undefined && retried.length === 0)
        throw new CommandError(`No failed payment event ${id} in app ${appId}: nothing to retry`);
      return { appID: ctx.appId, retried };
    },
  }),
];
