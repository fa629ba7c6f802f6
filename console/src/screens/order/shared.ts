import { useInvalidate } from '../../hooks';
import type { Schemas } from '../../api';

export type Order = Schemas['OrderViewDto'];

export type TimelineEvent = Schemas['TimelineEventDto'];

/** Refunds that count against what is left to refund (as the service counts them). */
export const COUNTED_REFUNDS = new Set(['succeeded', 'pending', 'requires_action']);

export function detail(event: TimelineEvent, key: string): unknown {
  return (event.details as Record<string, unknown>)[key];
}

export function str(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

export function num(value: unknown): number {
  return typeof value === 'number' ? value : Number(value) || 0;
}

export type Done = (message: string) => void;

export function useOrderChanged(order: Order) {
  const invalidate = useInvalidate();
  return () => invalidate(['order', order._id], ['orderTimeline', order._id], ['orders']);
}
