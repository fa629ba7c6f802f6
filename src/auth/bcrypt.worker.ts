import { compareSync, hashSync } from 'bcrypt';

export type BcryptTask = { op: 'compare'; plain: string; hash: string } | { op: 'hash'; plain: string; cost: number };

/** One bcrypt computation on a worker thread of BcryptPool (synchronous here: this thread does nothing else). */
export default function bcryptTask(task: BcryptTask): boolean | string {
  return task.op === 'compare' ? compareSync(task.plain, task.hash) : hashSync(task.plain, task.cost);
}
