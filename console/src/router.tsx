import { useSyncExternalStore, type AnchorHTMLAttributes, type MouseEvent } from 'react';

/**
 * A small history router: the console lives under BASE (/console), screens are matched by path patterns
 * (`/orders/:id`), and filters live in the query string so a reload or the back button keeps them.
 */
export const BASE = import.meta.env.BASE_URL.replace(/\/$/, '');

const listeners = new Set<() => void>();
const notify = () => listeners.forEach((listener) => listener());
window.addEventListener('popstate', notify);

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The path inside the console, always starting with `/`. */
function currentPath(): string {
  const path = window.location.pathname;
  const inside = path.startsWith(BASE) ? path.slice(BASE.length) : path;
  return inside === '' ? '/' : inside;
}

export function usePath(): string {
  return useSyncExternalStore(subscribe, currentPath);
}

export function useSearch(): URLSearchParams {
  const search = useSyncExternalStore(subscribe, () => window.location.search);
  return new URLSearchParams(search);
}

export function href(to: string): string {
  return BASE + to;
}

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  const url = href(to);
  if (options.replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  notify();
}

/** Replaces the query string of the current path (filters, page). */
export function setSearch(params: Record<string, string | number | undefined | null>, options: { replace?: boolean } = {}) {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params))
    if (value !== undefined && value !== null && value !== '') search.set(key, String(value));
  const query = search.toString();
  navigate(currentPath() + (query ? `?${query}` : ''), options);
}

/** Matches `/orders/:id` against a path; the params are URI-decoded. */
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split('/').filter(Boolean);
  const have = path.split('/').filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) params[want[i].slice(1)] = decodeURIComponent(have[i]);
    else if (want[i] !== have[i]) return null;
  }
  return params;
}

type LinkProps = Omit<AnchorHTMLAttributes<HTMLAnchorElement>, 'href'> & { to: string };

/** A link inside the console: a plain anchor (open in a new tab works), navigated in place on a plain click. */
export function Link({ to, onClick, ...rest }: LinkProps) {
  const handle = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={href(to)} onClick={handle} {...rest} />;
}

/** A page number from the query string (`page`, `ordersPage`): a whole number from 1, else 1. */
export function pageOf(search: URLSearchParams, key = 'page'): number {
  const page = Number(search.get(key));
  return Number.isInteger(page) && page > 0 ? page : 1;
}

export interface UrlFilters<K extends string> {
  /** The filters as the query string holds them ('' where it has none). */
  filters: Record<K, string>;
  page: number;
  /** Goes to a page of the same filters (page 1 is left out of the query string). */
  setPage: (page: number) => void;
  /** Puts a new set of filters in the query string, from the first page. */
  apply: (filters: Record<K, string>) => void;
  /** Empties the query string. */
  clear: () => void;
}

/**
 * A list's filters and page, kept in the query string so a reload or the back button keeps them. `normalize`
 * turns what was read or is about to be written into what the screen holds ('' leaves a key out of the URL).
 */
export function useUrlFilters<K extends string>(
  keys: readonly K[],
  normalize: (filters: Record<K, string>) => Record<K, string> = (filters) => filters,
): UrlFilters<K> {
  const search = useSearch();
  const filters = normalize(Object.fromEntries(keys.map((key) => [key, search.get(key) ?? ''])) as Record<K, string>);
  const page = pageOf(search);
  return {
    filters,
    page,
    setPage: (next) => setSearch({ ...filters, page: next > 1 ? next : undefined }),
    apply: (next) => setSearch({ ...normalize(next), page: undefined }),
    clear: () => setSearch({}),
  };
}
