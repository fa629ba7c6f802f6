import {
  useEffect,
  useId,
  useState,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';
import { asFailure } from '../api-failure';
import { useSession, type Permission } from '../session';

/** Whether the signed-in staff member holds a permission (what they cannot do is not offered). */
export function useCan(): (permission: Permission) => boolean {
  const session = useSession();
  const permissions = session.status === 'signedIn' ? session.data.staff.permissions : [];
  return (permission) => permissions.includes(permission);
}

/** The document title of a screen. */
export function useTitle(title: string) {
  const session = useSession();
  const app = session.status === 'signedIn' ? session.data.app.name : '';
  useEffect(() => {
    document.title = [title, app, 'Staff console'].filter(Boolean).join(' · ');
  }, [title, app]);
}

/** A failure's message, announced; the fields it names that no control shows are listed under it. */
export function ErrorMessage({ error, shownFields = [] }: { error: unknown; shownFields?: string[] }) {
  if (!error) return null;
  const failure = asFailure(error);
  const others = failure.errors.filter((e) => !e.field || !shownFields.some((f) => e.field === f || e.field?.startsWith(`${f}.`)));
  return (
    <div className="error" role="alert">
      <p>
        {failure.message}
        {failure.permission ? ` (${failure.permission})` : ''}
      </p>
      {others.length > 0 && (
        <ul>
          {others.map((e, i) => (
            <li key={i}>{e.field ? `${e.field}: ${e.message}` : e.message}</li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** A polite live region for results and confirmations. */
export function Status({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <p role="status" aria-live="polite" className={className ?? 'status'}>
      {children}
    </p>
  );
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <p role="status" aria-live="polite" className="loading">
      {label}
    </p>
  );
}

function fieldError(error: unknown, field: string | undefined): string | undefined {
  if (!error || !field) return undefined;
  return asFailure(error).forField(field);
}

interface FieldShell {
  label: string;
  /** The request field the API names in its errors (`amount`, `changes.currency`). */
  field?: string;
  error?: unknown;
  hint?: ReactNode;
  className?: string;
}

function useFieldIds(props: FieldShell) {
  const id = useId();
  const message = fieldError(props.error, props.field);
  const describedBy = [props.hint ? `${id}-hint` : '', message ? `${id}-error` : ''].filter(Boolean).join(' ') || undefined;
  return { id, message, describedBy };
}

function FieldExtras({ id, hint, message }: { id: string; hint?: ReactNode; message?: string }) {
  return (
    <>
      {hint && (
        <span id={`${id}-hint`} className="hint">
          {hint}
        </span>
      )}
      {message && (
        <span id={`${id}-error`} className="field-error">
          {message}
        </span>
      )}
    </>
  );
}

export function TextField({ label, field, error, hint, className, ...input }: FieldShell & InputHTMLAttributes<HTMLInputElement>) {
  const { id, message, describedBy } = useFieldIds({ label, field, error, hint });
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      <input id={id} aria-invalid={message ? true : undefined} aria-describedby={describedBy} {...input} />
      <FieldExtras id={id} hint={hint} message={message} />
    </div>
  );
}

export function TextArea({ label, field, error, hint, className, ...input }: FieldShell & TextareaHTMLAttributes<HTMLTextAreaElement>) {
  const { id, message, describedBy } = useFieldIds({ label, field, error, hint });
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      <textarea id={id} aria-invalid={message ? true : undefined} aria-describedby={describedBy} {...input} />
      <FieldExtras id={id} hint={hint} message={message} />
    </div>
  );
}

export function SelectField({
  label,
  field,
  error,
  hint,
  className,
  options,
  ...select
}: FieldShell & SelectHTMLAttributes<HTMLSelectElement> & { options: ReadonlyArray<string | { value: string; label: string }> }) {
  const { id, message, describedBy } = useFieldIds({ label, field, error, hint });
  return (
    <div className={`field ${className ?? ''}`}>
      <label htmlFor={id}>{label}</label>
      <select id={id} aria-invalid={message ? true : undefined} aria-describedby={describedBy} {...select}>
        {options.map((option) =>
          typeof option === 'string' ? (
            <option key={option} value={option}>
              {option}
            </option>
          ) : (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ),
        )}
      </select>
      <FieldExtras id={id} hint={hint} message={message} />
    </div>
  );
}

export function Checkbox({ label, className, ...input }: { label: string; className?: string } & InputHTMLAttributes<HTMLInputElement>) {
  const id = useId();
  return (
    <div className={`check ${className ?? ''}`}>
      <input id={id} type="checkbox" {...input} />
      <label htmlFor={id}>{label}</label>
    </div>
  );
}

/** Previous / next paging for lists paged on the server. */
export function Pager({
  page,
  hasMore,
  onPage,
  label,
  busy,
}: {
  page: number;
  hasMore: boolean;
  onPage: (page: number) => void;
  label: string;
  busy?: boolean;
}) {
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" className="secondary" onClick={() => onPage(page - 1)} disabled={page <= 1 || busy}>
        Previous page
      </button>
      <span>Page {page}</span>
      <button type="button" className="secondary" onClick={() => onPage(page + 1)} disabled={!hasMore || busy}>
        Next page
      </button>
    </nav>
  );
}

/** A table that scrolls sideways on a narrow screen; focusable so the keyboard can scroll it too. */
export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}

export function Badge({ value }: { value: string | null | undefined }) {
  if (!value) return <span className="badge">—</span>;
  return <span className={`badge badge-${value.toLowerCase().replace(/[^a-z]+/g, '-')}`}>{value}</span>;
}

/** A form's unsaved values, and `bind(key)` for a text control's onChange. */
export function useDraft<T extends object>(initial: T | (() => T)) {
  const [draft, setDraft] = useState<T>(initial);
  const bind = (key: keyof T) => (event: { target: { value: string } }) => setDraft({ ...draft, [key]: event.target.value });
  return { draft, setDraft, bind };
}

/** A list's filter form (a search landmark): the fields, then Search and a button that clears them. */
export function FilterForm({
  label,
  onApply,
  onClear,
  clearLabel = 'Clear filters',
  children,
}: {
  label: string;
  onApply: () => void;
  onClear: () => void;
  clearLabel?: string;
  children: ReactNode;
}) {
  return (
    <form
      className="filters"
      role="search"
      aria-label={label}
      onSubmit={(event) => {
        event.preventDefault();
        onApply();
      }}
    >
      {children}
      <div className="filter-actions">
        <button type="submit">Search</button>
        <button type="button" className="secondary" onClick={onClear}>
          {clearLabel}
        </button>
      </div>
    </form>
  );
}

/**
 * A list's results: `loading` until the first answer; then a polite line saying what is shown (`fetching`
 * while a new page or filter loads, `empty` when nothing matches, else `showing`), the table (`children`,
 * only when there are rows) and the pager.
 */
export function ListResults({
  query,
  count,
  loading,
  fetching = loading,
  empty,
  showing,
  pager,
  children,
}: {
  query: { isPending: boolean; isFetching: boolean };
  count: number;
  loading: string;
  fetching?: string;
  empty: string;
  showing: string;
  pager?: ReactNode;
  children: ReactNode;
}) {
  if (query.isPending) return <Loading label={loading} />;
  return (
    <>
      <Status>{query.isFetching ? fetching : count === 0 ? empty : showing}</Status>
      {count > 0 && children}
      {pager}
    </>
  );
}

/** What a list screen gives its filter form. */
export interface FilterProps<F> {
  filters: F;
  error: unknown;
  onApply: (filters: F) => void;
  onClear: () => void;
}
