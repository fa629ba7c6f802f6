import { useEffect, useId, useRef, type ReactNode } from 'react';
import { ErrorMessage } from './ui';

interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children?: ReactNode;
  confirmLabel: string;
  busy?: boolean;
  error?: unknown;
  danger?: boolean;
  onConfirm: () => void;
  onClose: () => void;
}

/**
 * A modal confirmation on the native <dialog>: focus moves into it and stays there, Escape closes it, and
 * the page behind is inert.
 */
export function ConfirmDialog({ open, title, children, confirmLabel, busy, error, danger, onConfirm, onClose }: ConfirmDialogProps) {
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

/**
 * A ConfirmDialog, open while mounted, whose confirm runs a mutation: busy while it runs, its failure shown.
 * The caller mounts it for one item (`key`) and unmounts it in `onClose`.
 */
export function MutationDialog({
  mutation,
  ...dialog
}: Omit<ConfirmDialogProps, 'open' | 'busy' | 'error' | 'onConfirm'> & {
  mutation: { isPending: boolean; error: unknown; mutate: () => void };
}) {
  return <ConfirmDialog open busy={mutation.isPending} error={mutation.error} onConfirm={() => mutation.mutate()} {...dialog} />;
}
