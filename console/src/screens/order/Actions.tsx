import { useMutation } from '@tanstack/react-query';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { api, call } from '../../api';
import { ErrorMessage, TextArea, useCan } from '../../components/ui';
import { type Order, type Done, useOrderChanged } from './shared';
import { RefundForm } from './Refund';
import { CancelOrder } from './Cancel';

/**
 * The actions column and the outcome of the last action, announced. When the control that was used went away
 * with the change (the cancel of an order now cancelled), focus would fall to the page: it comes to the outcome.
 */
export function ActionsAside({ notice, children }: { notice: string; children: ReactNode }) {
  const status = useRef<HTMLParagraphElement>(null);
  const lastFocused = useRef<HTMLElement | null>(null);
  useEffect(() => {
    const timer = setInterval(() => {
      const gone = lastFocused.current && !lastFocused.current.isConnected;
      if (gone && (document.activeElement === document.body || document.activeElement === null)) {
        lastFocused.current = null;
        status.current?.focus();
      }
    }, 200);
    return () => clearInterval(timer);
  }, []);
  return (
    <aside className="order-actions" aria-label="Order actions" onFocus={(e) => (lastFocused.current = e.target)}>
      <p ref={status} role="status" aria-live="polite" className="status action-status" tabIndex={-1}>
        {notice}
      </p>
      {children}
    </aside>
  );
}

export function Actions({
  order,
  refundable,
  timelineReady,
  onDone,
}: {
  order: Order;
  refundable: number;
  timelineReady: boolean;
  onDone: Done;
}) {
  const can = useCan();
  const canRefund =
    can('orders.refund') &&
    timelineReady &&
    order.status === 'Paid' &&
    (order.paymentStatus === 'Success' || order.paymentStatus === 'Partially Refunded') &&
    refundable > 0;
  const canCancel = can('orders.cancel') && order.items.some((item) => item.ItemStatus !== 'Cancelled');
  const canResend = can('orders.resend') && (order.status === 'Paid' || order.status === 'Ordered');
  const canNote = can('orders.note');
  if (!canRefund && !canCancel && !canResend && !canNote) return null;
  return (
    <>
      {canRefund && <RefundForm order={order} refundable={refundable} onDone={onDone} />}
      {canNote && <NoteForm order={order} onDone={onDone} />}
      {canResend && <ResendMail order={order} onDone={onDone} />}
      {canCancel && <CancelOrder order={order} onDone={onDone} />}
    </>
  );
}

function NoteForm({ order, onDone }: { order: Order; onDone: Done }) {
  const changed = useOrderChanged(order);
  const [text, setText] = useState('');
  const note = useMutation({
    mutationFn: () => call(api.POST('/ecommerce/addOrderNote', { body: { _orderID: order._id, text } })),
    onSuccess: async () => {
      setText('');
      onDone('Note added to the timeline.');
      await changed();
    },
  });
  return (
    <section className="panel" aria-labelledby="note-title">
      <h2 id="note-title">Note</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          onDone('');
          note.mutate();
        }}
      >
        <TextArea
          label="Note text"
          field="text"
          error={note.error}
          value={text}
          onChange={(e) => setText(e.target.value)}
          rows={3}
          maxLength={2000}
          required
        />
        <ErrorMessage error={note.error} shownFields={['text']} />
        <button type="submit" disabled={note.isPending}>
          Add note
        </button>
      </form>
    </section>
  );
}

function ResendMail({ order, onDone }: { order: Order; onDone: Done }) {
  const changed = useOrderChanged(order);
  const resend = useMutation({
    mutationFn: (mail: 'confirmation' | 'admin') => call(api.POST('/ecommerce/resendOrderMail', { body: { _orderID: order._id, mail } })),
    onSuccess: async (_answer, mail) => {
      onDone(mail === 'confirmation' ? `Confirmation queued for ${order.billing.email ?? 'the customer'}.` : 'Admin notice queued.');
      await changed();
    },
  });
  return (
    <section className="panel" aria-labelledby="resend-title">
      <h2 id="resend-title">Resend mails</h2>
      <div className="actions">
        <button type="button" onClick={() => resend.mutate('confirmation')} disabled={resend.isPending}>
          Resend confirmation
        </button>
        <button type="button" className="secondary" onClick={() => resend.mutate('admin')} disabled={resend.isPending}>
          Resend admin notice
        </button>
      </div>
      <ErrorMessage error={resend.error} />
    </section>
  );
}
