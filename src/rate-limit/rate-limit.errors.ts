import { ApiError, errorTable } from '../common/api-error';
import { ThrottlerStorageRecord } from './rate-limit.storage';

export const rateLimitError = errorTable({
  TOO_MANY_REQUESTS: { status: 429, message: 'Too many requests, please try again later' },
});

/** A refused hit's 429, with Retry-After in seconds (at least 1): `raise` picks the message. */
export function refusedHit(record: ThrottlerStorageRecord, raise: (options: { headers: Record<string, string> }) => ApiError): ApiError {
  return raise({ headers: { 'retry-after': String(Math.max(1, record.timeToBlockExpire)) } });
}
