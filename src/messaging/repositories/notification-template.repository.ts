import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { Notification } from '../entities/notification.entity';

/** What a notification is merged from: the parts of an app's core_notifications row for one event. */
export type NotificationTemplate = Pick<Notification, 'id' | 'subject' | 'content' | 'from' | 'bcc'>;

/** A template's fields a staff member sets (docs/messaging.md "Templates per tenant"). */
export type TemplateFields = Pick<Notification, 'event' | 'enabled' | 'subject' | 'content' | 'from' | 'bcc'>;

// Raw SQL: a measured hot path (/message/notification): building this select with the query builder
// cost a measurable share of the route's throughput in the benchmark. The columns are Notification's.
const ENABLED_TEMPLATE_SQL =
  'SELECT id, subject, content, "from", bcc FROM core_notifications WHERE app_id = $1 AND event = $2 AND enabled';

/** core_notifications: the apps' mail templates, one per event. */
@Injectable()
export class NotificationTemplateRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  /** The app's enabled template for `event`, or null. */
  async enabledFor(ctx: RequestContext, event: string): Promise<NotificationTemplate | null> {
    const [template] = await this.connection.query<NotificationTemplate>(ctx, ENABLED_TEMPLATE_SQL, [ctx.appId, event]);
    return template ?? null;
  }

  /** The app's enabled templates of `events` (one read), by event. */
  async enabledOf(ctx: RequestContext, events: string[]): Promise<Map<string, NotificationTemplate>> {
    const rows = await this.connection
      .repository(ctx, Notification)
      .createQueryBuilder('n')
      .select(['n.id', 'n.event', 'n.subject', 'n.content', 'n.from', 'n.bcc'])
      .where('n.app_id = :app AND n.event IN (:...events) AND n.enabled', { app: ctx.appId, events })
      .getMany();
    return new Map(rows.map((row) => [row.event, row]));
  }

  /** Every template of the app, by event name. */
  list(ctx: RequestContext): Promise<Notification[]> {
    return this.connection.repository(ctx, Notification).find({ where: { app_id: ctx.appId }, order: { event: 'ASC' } });
  }

  /** The app's template of `event`; `lock` takes its row lock in the caller's transaction (changes of one template one at a time). */
  one(ctx: RequestContext, event: string, lock = false): Promise<Notification | null> {
    const query = this.connection
      .repository(ctx, Notification)
      .createQueryBuilder('n')
      .where('n.app_id = :app AND n.event = :event', { app: ctx.appId, event });
    if (lock) query.setLock('pessimistic_write');
    return query.getOne();
  }

  async insert(ctx: RequestContext, fields: TemplateFields): Promise<Notification> {
    const repository = this.connection.repository(ctx, Notification);
    return repository.save(repository.create({ ...fields, app_id: ctx.appId }));
  }

  async update(ctx: RequestContext, row: Notification, fields: TemplateFields): Promise<Notification> {
    const repository = this.connection.repository(ctx, Notification);
    await repository.update({ id: row.id, app_id: ctx.appId }, fields);
    return (await repository.findOneBy({ id: row.id, app_id: ctx.appId }))!;
  }

  async delete(ctx: RequestContext, row: Notification): Promise<void> {
    await this.connection.repository(ctx, Notification).delete({ id: row.id, app_id: ctx.appId });
  }
}
