import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { NotificationVersion, VersionAction } from '../entities/notification-version.entity';
import { TemplateFields } from './notification-template.repository';

/** core_notification_versions: every state a change left an app's template for one event in. */
@Injectable()
export class NotificationVersionRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  /** The versions of the app's template for `event`, newest first. */
  list(ctx: RequestContext, event: string): Promise<NotificationVersion[]> {
    return this.connection
      .repository(ctx, NotificationVersion)
      .find({ where: { app_id: ctx.appId, event }, order: { version: 'DESC' }, take: 1000 });
  }

  one(ctx: RequestContext, event: string, version: number): Promise<NotificationVersion | null> {
    return this.connection.repository(ctx, NotificationVersion).findOneBy({ app_id: ctx.appId, event, version });
  }

  async latest(ctx: RequestContext, event: string): Promise<number> {
    const row = await this.connection
      .repository(ctx, NotificationVersion)
      .createQueryBuilder('v')
      .select('MAX(v.version)', 'max')
      .where('v.app_id = :app AND v.event = :event', { app: ctx.appId, event })
      .getRawOne<{ max: number | null }>();
    return Number(row?.max ?? 0);
  }

  /** Writes the next version of the event's template (in the caller's transaction); its number. */
  async append(
    ctx: RequestContext,
    action: VersionAction,
    notificationId: number | null,
    fields: TemplateFields,
    userId: number | null,
  ): Promise<NotificationVersion> {
    const repository = this.connection.repository(ctx, NotificationVersion);
    const version = (await this.latest(ctx, fields.event)) + 1;
    return repository.save(
      repository.create({
        app_id: ctx.appId,
        event: fields.event,
        version,
        action,
        notification_id: notificationId,
        enabled: fields.enabled,
        subject: fields.subject,
        content: fields.content,
        from: fields.from,
        bcc: fields.bcc,
        user_id: userId,
      }),
    );
  }
}
