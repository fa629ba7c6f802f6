/** Record lifecycle statuses (docs/content.md "Lifecycle"). */
export const LIFECYCLE_STATUSES = ['New', 'Editing', 'Staged', 'Published', 'Expired', 'Deleted', 'Rolled Back'] as const;
export type LifecycleStatus = (typeof LIFECYCLE_STATUSES)[number];

export interface LifecycleFlags {
  Published: 0 | 1;
  Staged: 0 | 1;
  IsExpired: 0 | 1;
}

/** The visibility flags a version has in each status (the table of docs/content.md "Lifecycle"). */
export function flagsFor(status: LifecycleStatus): LifecycleFlags {
  switch (status) {
    case 'Published':
      return { Published: 1, Staged: 1, IsExpired: 0 };
    case 'Staged':
      return { Published: 0, Staged: 1, IsExpired: 0 };
    case 'Expired':
      return { Published: 0, Staged: 0, IsExpired: 1 };
    case 'New':
    case 'Editing':
    case 'Deleted':
    case 'Rolled Back':
      return { Published: 0, Staged: 0, IsExpired: 0 };
  }
}

export function isLifecycleStatus(value: unknown): value is LifecycleStatus {
  return typeof value === 'string' && (LIFECYCLE_STATUSES as readonly string[]).includes(value);
}
