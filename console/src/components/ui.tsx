import {
  useEffect,
  useId,
  useRef,
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

/**
 * A modal confirmation on the native <dialog>: focus moves into it and stays there, Escape closes it, and
 * the page behind is inert.
 */
export function ConfirmDialog({
  open,
  title,
  children,
  confirmLabel,
  busy,
  error,
  danger,
  onConfirm,
  onClose,
}: {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  error?: unknown;
  danger?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog || !open) return;
    // Focus goes back where it was when the dialog closes, also when it is unmounted while open.
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    return () => {
      if (dialog.open) dialog.close();
      // The control that opened it may be gone (a cancelled order offers no cancel): then the screen gets it.
      if (opener?.isConnected) opener.focus();
      else document.getElementById('main')?.focus();
    };
  }, [open]);
  return (
    <dialog ref={ref} className="dialog" aria-labelledby={titleId} onClose={onClose} onCancel={() => onClose()}>
      <h2 id={titleId}>{title}</h2>
      <div className="dialog-body">{children}</div>
      <ErrorMessage error={error} />
      <div className="actions">
        <button type="button" className={danger ? 'danger' : undefined} onClick={onConfirm} disabled={busy} autoFocus>
          {busy ? 'Working…' : confirmLabel}
        </button>
        <button type="button" className="secondary" onClick={onClose}>
          Back
        </button>
      </div>
    </dialog>
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
