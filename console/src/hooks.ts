import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';

/** The value once it has stopped changing for `ms` (the live preview's pause after typing). */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** Marks queries stale after a change, so the screens showing them fetch them again: `invalidate(['orders'], ['order', id])`. */
export function useInvalidate() {
  const client = useQueryClient();
  return (...keys: unknown[][]) => Promise.all(keys.map((queryKey) => client.invalidateQueries({ queryKey })));
}
