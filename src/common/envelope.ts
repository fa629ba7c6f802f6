import { isoNow } from './clock';

/** The envelopes every endpoint answers in: `Success` with optional data and datetime, `Failed` with a message (README "API conventions"). */
export interface FieldError {
  field: string;
  message: string;
}

export function success<T extends object>(fields: T = {} as T): { status: 'Success'; datetime: string } & T {
  return { status: 'Success', ...fields, datetime: isoNow() };
}

export function successData<T>(data: T): { status: 'Success'; data: T; datetime: string } {
  return success({ data });
}
