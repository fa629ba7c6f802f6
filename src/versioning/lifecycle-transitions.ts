import { StateMachine, Transition } from '../common/state-machine';
import { LIFECYCLE_STATUSES, LifecycleStatus } from './lifecycle';
import { VersioningErrorCode } from './versioning.errors';

/** The columns of a core_data row a transition changes. */
export interface VersionChange {
  Status?: LifecycleStatus;
  IsCurrent?: 0 | 1;
  Published?: 0 | 1;
  Staged?: 0 | 1;
  IsExpired?: 0 | 1;
  Lock?: 0 | 1;
}

/** What a rule asks of a version's flags, beyond its status; every given part must hold. */
export interface FlagMatch {
  /** Published or Staged set: readers can see the version (a manual expire applies only to such a version). */
  visible?: true;
  /** Published set (live, whatever the status says). */
  published?: true;
  current?: boolean;
}

/** Which versions a rule matches; every given part must hold. */
export interface VersionMatch extends FlagMatch {
  status?: readonly LifecycleStatus[];
}

/**
 * A row of the lifecycle's transition table: the machine's part (`from`: the statuses the action applies
 * to; `to`: the status it leaves, the `Status` of `set`) and what else the action asks and changes.
 */
export interface LifecycleTransition extends Transition<LifecycleStatus> {
  /** What the version's flags must be besides its status for the action to apply. */
  flags?: FlagMatch;
  /** Versions in which asking again changes nothing (200 with `alreadyMessage`); checked before `from`. */
  already?: VersionMatch;
  /** A new publish schedule makes an "already" request apply again (new dates). */
  rescheduleApplies?: boolean;
  /** What the version becomes. */
  set: VersionChange & { Status: LifecycleStatus };
  /** What the record's other versions with Published or Staged set become. */
  others?: VersionChange;
  /** `others` applies to every version of the record, this one included, before `set`. */
  othersAll?: boolean;
  /** What the version that was current becomes when another version becomes current. */
  previous?: VersionChange;
  /** Publish_By, Publish_Set_Date (default now) and Publish_Expire_Date are set from the schedule. */
  schedules?: boolean;
  /** Publish_Expire_Date becomes now. */
  expiresNow?: boolean;
  message: string;
  alreadyMessage?: string;
  /** The failure of a refused transition. */
  refusal: VersioningErrorCode;
}

const ALL: readonly LifecycleStatus[] = LIFECYCLE_STATUSES;
const NOT_DELETED = ALL.filter((s) => s !== 'Deleted');
const LIVE: VersionChange = { Published: 1, Staged: 1, IsExpired: 0, Lock: 0 };
const HIDDEN: VersionChange = { Published: 0, Staged: 0 };
const ANY_FLAGS: FlagMatch = {};

/** A row of the table, its `to` taken from `set.Status` so that the two cannot disagree. */
function rule<const R extends Omit<LifecycleTransition, 'to'>>(row: R): R & { to: R['set']['Status'] } {
  return { ...row, to: row.set.Status };
}

/**
 * The record lifecycle (docs/content.md "Lifecycle", "Versions") in one table: for each action, the
 * versions it applies to and what it changes. Services pick the version an action concerns (the current
 * one, the newest staged one, the target of a rollback) and ask `decide`; the expiry job applies
 * `reachExpiry` to due published versions.
 */
export const LIFECYCLE_TRANSITIONS = {
  create: rule({
    from: [],
    set: { Status: 'New', IsCurrent: 1, Published: 0, Staged: 0, IsExpired: 0, Lock: 0 },
    message: 'Record created',
    refusal: 'CANNOT_TRANSITION',
  }),
  /** A new version becomes current in status Editing; the old one keeps its publication flags (what is live stays live). */
  edit: rule({
    from: NOT_DELETED,
    set: { Status: 'Editing', IsCurrent: 1, Published: 0, Staged: 0, IsExpired: 0, Lock: 1 },
    previous: { IsCurrent: 0, Lock: 0 },
    message: 'Record saved',
    refusal: 'RECORD_DELETED',
  }),
  stage: rule({
    from: ['New', 'Editing', 'Rolled Back', 'Staged'],
    already: { status: ['Staged'] },
    rescheduleApplies: true,
    set: { Status: 'Staged', Published: 0, Staged: 1, IsExpired: 0, Lock: 0 },
    schedules: true,
    message: 'Record staged',
    alreadyMessage: 'Record already staged',
    refusal: 'CANNOT_TRANSITION',
  }),
  publish: rule({
    from: ['New', 'Editing', 'Staged', 'Rolled Back', 'Expired', 'Published'],
    already: { status: ['Published'] },
    rescheduleApplies: true,
    set: { Status: 'Published', ...LIVE },
    others: HIDDEN,
    schedules: true,
    message: 'Record published',
    alreadyMessage: 'Record already published',
    refusal: 'CANNOT_TRANSITION',
  }),
  promote: rule({
    from: ['Staged'],
    already: { status: ['Published'], visible: true },
    set: { Status: 'Published', ...LIVE },
    others: HIDDEN,
    schedules: true,
    message: 'Record promoted',
    alreadyMessage: 'Record already published',
    refusal: 'CANNOT_TRANSITION',
  }),
  /** Applies to every visible version of the record; with none, an Expired record is already expired. */
  expire: rule({
    from: ALL,
    flags: { visible: true },
    already: { status: ['Expired'] },
    set: { Status: 'Expired', Published: 0, Staged: 0, IsExpired: 1, Lock: 0 },
    expiresNow: true,
    message: 'Record expired',
    alreadyMessage: 'Record already expired',
    refusal: 'CANNOT_TRANSITION',
  }),
  /** Soft delete: the current version becomes Deleted and no version of the record stays visible. */
  delete: rule({
    from: NOT_DELETED,
    already: { status: ['Deleted'] },
    set: { Status: 'Deleted', Published: 0, Staged: 0, Lock: 0 },
    others: { ...HIDDEN, Lock: 0 },
    othersAll: true,
    message: 'Record deleted',
    alreadyMessage: 'Record already deleted',
    refusal: 'CANNOT_TRANSITION',
  }),
  /** Version rule 5: an earlier version becomes current again; publication flags stay as they are. */
  rollback: rule({
    from: ALL,
    flags: { current: false },
    already: { current: true, status: ['Rolled Back'] },
    set: { Status: 'Rolled Back', IsCurrent: 1, Lock: 0 },
    previous: { IsCurrent: 0, Lock: 0 },
    message: 'Record rolled back',
    alreadyMessage: 'Record already rolled back to this version',
    refusal: 'ALREADY_CURRENT',
  }),
  /** The expiry job: a version with Published set whose Publish_Expire_Date has passed. */
  reachExpiry: rule({
    from: ALL,
    flags: { published: true },
    set: { Status: 'Expired', Published: 0, Staged: 0, IsExpired: 1, Lock: 0 },
    message: 'Record expired',
    refusal: 'CANNOT_TRANSITION',
  }),
} satisfies Record<string, LifecycleTransition>;

export type LifecycleAction = keyof typeof LIFECYCLE_TRANSITIONS;

/** The lifecycle as a state machine over the statuses: every status decision of versioning asks it. */
export const lifecycleMachine = new StateMachine<LifecycleStatus, LifecycleAction, LifecycleTransition>('record', LIFECYCLE_TRANSITIONS);

/** The live version of a record: Published, and published (promote's "already" target). */
export const LIVE_VERSION: VersionMatch = { status: ['Published'], published: true };

/** The part of a core_data row the rules look at. */
export interface VersionState {
  Status: LifecycleStatus;
  Published: 0 | 1;
  Staged: 0 | 1;
  IsCurrent: 0 | 1;
}

export type Decision =
  | { kind: 'apply'; transition: LifecycleTransition }
  | { kind: 'already'; message: string }
  | { kind: 'refused'; code: VersioningErrorCode };

/** What `action` does to `version`: apply the transition, answer that nothing changes, or refuse. */
export function decide(action: LifecycleAction, version: VersionState, options: { rescheduled?: boolean } = {}): Decision {
  const transition: LifecycleTransition = LIFECYCLE_TRANSITIONS[action];
  const again = transition.rescheduleApplies === true && options.rescheduled === true;
  if (transition.already && matches(transition.already, version) && !again) return { kind: 'already', message: transition.alreadyMessage! };
  if (lifecycleMachine.allows(action, version.Status) && matches(transition.flags ?? ANY_FLAGS, version))
    return { kind: 'apply', transition };
  return { kind: 'refused', code: transition.refusal };
}

export function matches(match: VersionMatch, version: VersionState): boolean {
  if (match.status && !match.status.includes(version.Status)) return false;
  if (match.visible && version.Published !== 1 && version.Staged !== 1) return false;
  if (match.published && version.Published !== 1) return false;
  if (match.current !== undefined && (version.IsCurrent === 1) !== match.current) return false;
  return true;
}

/** The detail of a CANNOT_TRANSITION refusal. */
export function refusalDetail(action: LifecycleAction, status: LifecycleStatus): string {
  return `${action} a record whose current version is ${status}`;
}
