import { LIFECYCLE_STATUSES, LifecycleStatus } from './lifecycle';
import { decide, LifecycleAction, LIFECYCLE_TRANSITIONS, VersionState } from './lifecycle-transitions';

/**
 * The record lifecycle's transition table, action by action and status by status: which versions an action
 * applies to, which answer "already" without a change, which it refuses.
 */
const state = (Status: LifecycleStatus, flags: Partial<VersionState> = {}): VersionState => ({
  Status,
  Published: 0,
  Staged: 0,
  IsCurrent: 1,
  ...flags,
});

/** The decision for each status of a current version with the flags its status has. */
function outcomes(
  action: LifecycleAction,
  options: { rescheduled?: boolean } = {},
  flags: (s: LifecycleStatus) => Partial<VersionState> = typical,
): Record<string, string> {
  return Object.fromEntries(
    LIFECYCLE_STATUSES.map((status) => {
      const d = decide(action, state(status, flags(status)), options);
      return [status, d.kind === 'apply' ? 'apply' : d.kind === 'already' ? `already: ${d.message}` : `refused: ${d.code}`];
    }),
  );
}

function typical(status: LifecycleStatus): Partial<VersionState> {
  if (status === 'Published') return { Published: 1, Staged: 1 };
  if (status === 'Staged') return { Staged: 1 };
  return {};
}

describe('lifecycle transitions', () => {
  it('edit: a new Editing version from any status but Deleted', () => {
    expect(outcomes('edit')).toEqual({
      New: 'apply',
      Editing: 'apply',
      Staged: 'apply',
      Published: 'apply',
      Expired: 'apply',
      Deleted: 'refused: RECORD_DELETED',
      'Rolled Back': 'apply',
    });
    expect(LIFECYCLE_TRANSITIONS.edit.set).toEqual({ Status: 'Editing', IsCurrent: 1, Published: 0, Staged: 0, IsExpired: 0, Lock: 1 });
    expect(LIFECYCLE_TRANSITIONS.edit.previous).toEqual({ IsCurrent: 0, Lock: 0 });
  });

  it('stage: from New, Editing, Rolled Back; Staged again only with a new schedule', () => {
    const refused = 'refused: CANNOT_TRANSITION';
    expect(outcomes('stage')).toEqual({
      New: 'apply',
      Editing: 'apply',
      Staged: 'already: Record already staged',
      Published: refused,
      Expired: refused,
      Deleted: refused,
      'Rolled Back': 'apply',
    });
    expect(outcomes('stage', { rescheduled: true })).toEqual({
      New: 'apply',
      Editing: 'apply',
      Staged: 'apply',
      Published: refused,
      Expired: refused,
      Deleted: refused,
      'Rolled Back': 'apply',
    });
    expect(LIFECYCLE_TRANSITIONS.stage.set).toEqual({ Status: 'Staged', Published: 0, Staged: 1, IsExpired: 0, Lock: 0 });
    expect(LIFECYCLE_TRANSITIONS.stage.schedules).toBe(true);
  });

  it('publish: from every status but Deleted; Published again only with a new schedule; other versions lose their flags', () => {
    expect(outcomes('publish')).toEqual({
      New: 'apply',
      Editing: 'apply',
      Staged: 'apply',
      Published: 'already: Record already published',
      Expired: 'apply',
      Deleted: 'refused: CANNOT_TRANSITION',
      'Rolled Back': 'apply',
    });
    expect(outcomes('publish', { rescheduled: true }).Published).toBe('apply');
    expect(LIFECYCLE_TRANSITIONS.publish.set).toEqual({ Status: 'Published', Published: 1, Staged: 1, IsExpired: 0, Lock: 0 });
    expect(LIFECYCLE_TRANSITIONS.publish.others).toEqual({ Published: 0, Staged: 0 });
  });

  it('promote: Staged → Published; a live Published version is already published, whatever the schedule', () => {
    const refused = 'refused: CANNOT_TRANSITION';
    const expected = {
      New: refused,
      Editing: refused,
      Staged: 'apply',
      Published: 'already: Record already published',
      Expired: refused,
      Deleted: refused,
      'Rolled Back': refused,
    };
    expect(outcomes('promote')).toEqual(expected);
    expect(outcomes('promote', { rescheduled: true })).toEqual(expected);
    // A version whose status says Published but which is not live is no reason to answer "already".
    expect(decide('promote', state('Published')).kind).toBe('refused');
    expect(LIFECYCLE_TRANSITIONS.promote.set).toEqual(LIFECYCLE_TRANSITIONS.publish.set);
    expect(LIFECYCLE_TRANSITIONS.promote.others).toEqual(LIFECYCLE_TRANSITIONS.publish.others);
  });

  it('expire: every visible (Published or Staged) version; with none, Expired is already expired and the rest is refused', () => {
    for (const status of LIFECYCLE_STATUSES) {
      expect(decide('expire', state(status, { Published: 1, Staged: 1 })).kind).toBe(status === 'Expired' ? 'already' : 'apply');
      expect(decide('expire', state(status, { Staged: 1 })).kind).toBe(status === 'Expired' ? 'already' : 'apply');
    }
    expect(outcomes('expire', {}, () => ({}))).toEqual({
      New: 'refused: CANNOT_TRANSITION',
      Editing: 'refused: CANNOT_TRANSITION',
      Staged: 'refused: CANNOT_TRANSITION',
      Published: 'refused: CANNOT_TRANSITION',
      Expired: 'already: Record already expired',
      Deleted: 'refused: CANNOT_TRANSITION',
      'Rolled Back': 'refused: CANNOT_TRANSITION',
    });
    expect(LIFECYCLE_TRANSITIONS.expire.set).toEqual({ Status: 'Expired', Published: 0, Staged: 0, IsExpired: 1, Lock: 0 });
    expect(LIFECYCLE_TRANSITIONS.expire.expiresNow).toBe(true);
  });

  it('delete: from any status; Deleted is already deleted; every version loses its flags', () => {
    expect(outcomes('delete')).toEqual({
      New: 'apply',
      Editing: 'apply',
      Staged: 'apply',
      Published: 'apply',
      Expired: 'apply',
      Deleted: 'already: Record already deleted',
      'Rolled Back': 'apply',
    });
    expect(LIFECYCLE_TRANSITIONS.delete.set).toEqual({ Status: 'Deleted', Published: 0, Staged: 0, Lock: 0 });
    expect(LIFECYCLE_TRANSITIONS.delete.others).toEqual({ Published: 0, Staged: 0, Lock: 0 });
    expect(LIFECYCLE_TRANSITIONS.delete.othersAll).toBe(true);
  });

  it('rollback: to any version that is not current; the current one is refused unless it is the rolled-back one', () => {
    for (const status of LIFECYCLE_STATUSES) {
      expect(decide('rollback', state(status, { ...typical(status), IsCurrent: 0 })).kind).toBe('apply');
    }
    expect(outcomes('rollback')).toEqual({
      New: 'refused: ALREADY_CURRENT',
      Editing: 'refused: ALREADY_CURRENT',
      Staged: 'refused: ALREADY_CURRENT',
      Published: 'refused: ALREADY_CURRENT',
      Expired: 'refused: ALREADY_CURRENT',
      Deleted: 'refused: ALREADY_CURRENT',
      'Rolled Back': 'already: Record already rolled back to this version',
    });
    // Publication flags stay as they are: publishing the restored version is a separate step.
    expect(LIFECYCLE_TRANSITIONS.rollback.set).toEqual({ Status: 'Rolled Back', IsCurrent: 1, Lock: 0 });
    expect(LIFECYCLE_TRANSITIONS.rollback.previous).toEqual({ IsCurrent: 0, Lock: 0 });
  });

  it('reaching Publish_Expire_Date: a version with Published set becomes Expired, whatever its status', () => {
    for (const status of LIFECYCLE_STATUSES) {
      expect(decide('reachExpiry', state(status, { Published: 1, Staged: 1 })).kind).toBe('apply');
      expect(decide('reachExpiry', state(status, { Staged: 1 })).kind).toBe('refused');
    }
    expect(LIFECYCLE_TRANSITIONS.reachExpiry.set).toEqual(LIFECYCLE_TRANSITIONS.expire.set);
  });

  it('create: a first version New, current, not visible', () => {
    expect(LIFECYCLE_TRANSITIONS.create.set).toEqual({ Status: 'New', IsCurrent: 1, Published: 0, Staged: 0, IsExpired: 0, Lock: 0 });
  });
});
