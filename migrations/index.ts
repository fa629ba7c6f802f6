import { Foundation1764000000000 } from './1764000000000-foundation';

/** Every migration, in order. A new migration is a new file here, never an edit of an applied one. */
export const migrations = [Foundation1764000000000];
