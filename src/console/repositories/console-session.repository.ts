import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/request-context';
import { TransactionalConnection } from '../../database/transactional-connection';
import { ConsoleSession } from '../entities/console-session.entity';

/** A session as a refresh reads it: whose it is, the digest of its current secret, and whether it went idle. */
export interface StoredSession {
  id: string;
  appId: number;
  userId: number;
  secretHash: Buffer;
  /** Not refreshed within the idle time (decided by the database's clock, the same for every instance). */
  idle: boolean;
}

/** Every query on core_console_sessions. */
@Injectable()
export class ConsoleSessionRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  async insert(ctx: RequestContext, row: { id: string; userId: number; secretHash: Buffer }): Promise<void> {
    await this.connection
      .repository(ctx, ConsoleSession)
      .createQueryBuilder()
      .insert()
      .values({ id: row.id, app_id: ctx.appId, user_id: row.userId, secret_hash: row.secretHash })
      .execute();
  }

  /** The session `id` (of any app: the cookie names its app through the session), or null. */
  async find(ctx: RequestContext, id: string, idleMinutes: number): Promise<StoredSession | null> {
    const row = await this.connection
      .repository(ctx, ConsoleSession)
      .createQueryBuilder('s')
      .select(['s.id AS id', 's.app_id AS app_id', 's.user_id AS user_id', 's.secret_hash AS secret_hash'])
      .addSelect('s.last_active < now() - make_interval(mins => :idleMinutes)', 'idle')
      .where('s.id = :id', { id, idleMinutes })
      .getRawOne<{ id: string; app_id: number; user_id: number; secret_hash: Buffer; idle: boolean }>();
    return row ? { id: row.id, appId: row.app_id, userId: row.user_id, secretHash: row.secret_hash, idle: row.idle } : null;
  }

  /**
   * Replaces the secret's digest and marks the session active, only while the digest is still `expected`: of
   * two refreshes with the same cookie, one rotates and the other finds nothing (false).
   */
  async rotate(ctx: RequestContext, id: string, expected: Buffer, next: Buffer): Promise<boolean> {
    const result = await this.connection
      .repository(ctx, ConsoleSession)
      .createQueryBuilder()
      .update()
      .set({ secret_hash: next, last_active: () => 'now()' })
      .where('id = :id AND secret_hash = :expected', { id, expected })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  async delete(ctx: RequestContext, id: string): Promise<void> {
    await this.connection.repository(ctx, ConsoleSession).delete({ id });
  }

  /** Deletes the sessions of every app that went idle (each sign-in sweeps them: a refresh could never revive them). */
  async deleteIdle(ctx: RequestContext, idleMinutes: number): Promise<void> {
    await this.connection
      .repository(ctx, ConsoleSession)
      .createQueryBuilder()
      .delete()
      .where('last_active < now() - make_interval(mins => :idleMinutes)', { idleMinutes })
      .execute();
  }
}
