import { compareSync, hashSync } from 'bcrypt';

export type BcryptTask = ({ op: 'compare'; plain: string; hash: string } | { op: 'hash'; plain: string; cost: number }) & {
  /** Shared with the caller, who sets it to 1 once nobody wants the result (its client left): the task is skipped if not started. */
  cancelled?: Int32Array;
};

/**
 * One bcrypt computation on a worker thread of BcryptPool (synchronous here: this thread does nothing else);
 * null for a task cancelled while it waited.
 */
export default function bcryptTask(task: BcryptTask): boolean | string | null {
  if (task.cancelled && Atomics.load(task.cancelled, 0) !== 0) return null;
  return task.op === 'compare' ? compareSync(task.plain, task.hash) : hashSync(task.plain, task.cost);
}
