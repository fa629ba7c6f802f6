import { isoNow } from './clock';

/** The spec's envelopes (SPEC "Conventions that apply to every endpoint"). */
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
