import { Pool, PoolClient } from 'pg';
import { TenantShare } from './tenant-share';

/**
 * The request a connection is checked out for: its tenant, once resolved, and whether it is authenticated (a
 * principal, or a bearer token whose signature and claims were verified and whose account is being read).
 */
export interface ConnectionRequester {
  readonly site: { readonly id: number } | null;
  readonly principal?: unknown;
  readonly credentialVerified?: boolean;
}

type ConnectCallback = (error: Error | undefined, client?: PoolClient, release?: (error?: Error | boolean) => void) => void;

/** A request's slot of its tenant's share, held while it holds any connection. */
interface Holding {
  connections: number;
  slot?: Promise<() => void>;
}

/**
 * The `pg` driver TypeORM is given for the request pool (its `driver` option): pg's own, except that a
 * connection checked out while a tenant's request is being served first takes a slot of that tenant's
 * share (TenantShare) and gives it back when the connection is released; an authenticated request's slot is
 * a priority one (FairShareGate). The request is found through
 * `currentRequest` (the request's async-local store) because connections are checked out deep inside
 * TypeORM; background work runs outside any request and is not counted. A request takes one slot however
 * many connections it holds at once (a transaction and a read beside it), so it never waits for itself.
 */
export function tenantSharedDriver(share: TenantShare, currentRequest: () => ConnectionRequester | undefined): { Pool: typeof Pool } {
  const holdings = new WeakMap<ConnectionRequester, Holding>();

  function holdingOf(requester: ConnectionRequester): Holding {
    let holding = holdings.get(requester);
    if (!holding) holdings.set(requester, (holding = { connections: 0 }));
    return holding;
  }

  /** Counts one more connection of the request, taking a slot for its first; answers what counts it off again. */
  async function hold(requester: ConnectionRequester, appId: number): Promise<() => void> {
    const held = holdingOf(requester);
    held.connections++;
    const done = () => {
      if (--held.connections > 0) return;
      const slot = held.slot;
      held.slot = undefined;
      slot?.then(
        (giveBack) => giveBack(),
        () => undefined,
      );
    };
    held.slot ??= share.take(appId, requester.principal != null || requester.credentialVerified === true);
    try {
      await held.slot;
    } catch (error) {
      done();
      throw error;
    }
    return done;
  }

  class TenantSharedPool extends Pool {
    // pg-pool's own signature: a promise without a callback (TypeORM passes one).
    override connect(): Promise<PoolClient>;
    override connect(callback: ConnectCallback): void;
    override connect(callback?: ConnectCallback): Promise<PoolClient> | void {
      const requester = currentRequest();
      const appId = requester?.site?.id;
      if (!requester || appId === undefined) return callback ? super.connect(callback) : super.connect();
      const connected = this.connectFor(requester, appId);
      if (!callback) return connected;
      connected.then(
        (client) => callback(undefined, client, client.release),
        (error: Error) => callback(error),
      );
    }

    private async connectFor(requester: ConnectionRequester, appId: number): Promise<PoolClient> {
      const done = await hold(requester, appId);
      let client: PoolClient;
      try {
        client = await super.connect();
      } catch (error) {
        done();
        throw error;
      }
      const release = client.release;
      let released = false;
      client.release = (error?: Error | boolean) => {
        if (!released) {
          released = true;
          done();
        }
        return release(error);
      };
      return client;
    }
  }

  return { Pool: TenantSharedPool };
}
