import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { api, call, type Schemas } from '../api';
import { ApiFailure } from '../api-failure';
import { ConfirmDialog } from '../components/dialog';
import { Badge, ErrorMessage, Loading, TableWrap, TextArea, TextField, useCan, useTitle } from '../components/ui';
import { dateTime, fullName, money, toMajor, toMinor } from '../format';
import { Link } from '../router';

type Order = Schemas['OrderViewDto'];
type TimelineEvent = Schemas['TimelineEventDto'];

/** Refunds that count against what is left to refund (as the service counts them). */
const COUNTED_REFUNDS = new Set(['succeeded', 'pending', 'requires_action']);

function idempotencyKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return `console-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

function detail(event: TimelineEvent, key: string): unknown {
  return (event.details as Record<string, unknown>)[key];
}

function str(value: unknown): string {
  return value === null || value === undefined ? '' : String(value);
}

function num(value: unknown): number {
  return typeof value === 'number' ? value : Number(value) || 0;
}

export default function OrderDetail({ params }: { params: Record<string, string> }) {
  const orderID = params.id;
  const order = useQuery({
    queryKey: ['order', orderID],
    queryFn: () => call(api.POST('/ecommerce/getOrder', { body: { _orderID: orderID } })),
  });
  const timeline = useQuery({
    queryKey: ['orderTimeline', orderID],
    queryFn: () => call(api.POST('/ecommerce/orderTimeline', { body: { _orderID: orderID } })),
  });
  const data = order.data?.data;
  // The outcome of the last action, kept here: the action's own panel may go (a cancelled order offers no cancel).
  const [notice, setNotice] = useState('');
  useTitle(data ? `Order ${data.orderNumber || data.orderID}` : 'Order');

  if (order.isPending) return <Loading label="Loading the order…" />;
  if (!data)
    return (
      <section aria-labelledby="order-title">
        <h1 id="order-title">Order</h1>
        <ErrorMessage error={order.error} />
        <p>
          <Link to="/orders">Back to orders</Link>
        </p>
      </section>
    );

  const events = timeline.data?.data.events ?? [];
  const refunds = events.filter((e) => e.type === 'refund');
  const refunded = refunds
    .filter((e) => COUNTED_REFUNDS.has(str(detail(e, 'status'))))
    .reduce((sum, e) => sum + num(detail(e, 'amount')), 0);
  const refundable = Math.max(0, data.total - refunded);

  return (
    <section aria-labelledby="order-title" className="order">
      <p className="crumbs">
        <Link to="/orders">Orders</Link> / {data.orderNumber || data.orderID}
      </p>
      <h1 id="order-title">Order {data.orderNumber || `#${data.orderID}`}</h1>
      <div className="order-grid">
        <div className="order-main">
          <Summary order={data} refunded={refunded} refundable={refundable} />
          <Items order={data} />
          <Payments order={data} events={events} />
          <Mails events={events} />
          <Timeline events={events} loading={timeline.isPending} error={timeline.error} currency={data.currency} />
        </div>
        <ActionsAside notice={notice}>
          <Actions order={data} refundable={refundable} timelineReady={!timeline.isPending} onDone={setNotice} />
        </ActionsAside>
      </div>
    </section>
  );
}

function Summary({ order, refunded, refundable }: { order: Order; refunded: number; refundable: number }) {
  const billing = order.billing;
  return (
    <section className="panel" aria-labelledby="summary-title">
      <h2 id="summary-title">Summary</h2>
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          <Badge value={order.status} />
        </dd>
        <dt>Payment</dt>
        <dd>
          <Badge value={order.paymentStatus} /> {order.paymentMethod && <span className="sub-inline">{order.paymentMethod}</span>}
        </dd>
        <dt>Created</dt>
        <dd>{dateTime(order.created)}</dd>
        <dt>Completed</dt>
        <dd>{dateTime(order.orderDate)}</dd>
        <dt>Customer</dt>
        <dd>
          {fullName(billing.firstName, billing.lastName) || '—'}
          {billing.email && <span className="sub">{billing.email}</span>}
        </dd>
        <dt>Billing address</dt>
        <dd>{[billing.address, billing.suburb, billing.postCode].filter(Boolean).join(', ') || '—'}</dd>
        <dt>Total</dt>
        <dd>{money(order.total, order.currency)}</dd>
        <dt>Refunded</dt>
        <dd>{money(refunded, order.currency)}</dd>
        <dt>Left to refund</dt>
        <dd>{money(order.status === 'Paid' ? refundable : 0, order.currency)}</dd>
        {order.notes && (
          <>
            <dt>Customer notes</dt>
            <dd className="wrap">{order.notes}</dd>
          </>
        )}
      </dl>
    </section>
  );
}

function Items({ order }: { order: Order }) {
  return (
    <section className="panel" aria-labelledby="items-title">
      <h2 id="items-title">Items</h2>
      {order.items.length === 0 ? (
        <p>No items.</p>
      ) : (
        <TableWrap label="Order items">
          <table className="list">
            <thead>
              <tr>
                <th scope="col">Item</th>
                <th scope="col" className="num">
                  Qty
                </th>
                <th scope="col" className="num">
                  Unit price
                </th>
                <th scope="col" className="num">
                  Subtotal
                </th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {order.items.map((item) => (
                <tr key={item.id}>
                  <th scope="row" className="wrap">
                    {item.title}
                    {item.IsDigital === 1 && <span className="sub">Digital</span>}
                  </th>
                  <td className="num">{item.Qty}</td>
                  <td className="num">{money(item.Price, order.currency)}</td>
                  <td className="num">{money(item.subtotal, order.currency)}</td>
                  <td>
                    <Badge value={item.ItemStatus} />
                  </td>
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row" colSpan={3}>
                  Total
                </th>
                <td className="num">{money(order.total, order.currency)}</td>
                <td />
              </tr>
            </tfoot>
          </table>
        </TableWrap>
      )}
    </section>
  );
}

function Payments({ order, events }: { order: Order; events: TimelineEvent[] }) {
  const payments = events.filter((e) => e.type === 'checkout' || e.type === 'payment_event');
  const refunds = events.filter((e) => e.type === 'refund');
  return (
    <section className="panel" aria-labelledby="payments-title">
      <h2 id="payments-title">Payments and refunds</h2>
      <h3>Payments</h3>
      {payments.length === 0 ? (
        <p>No payment was asked for.</p>
      ) : (
        <TableWrap label="Payments">
          <table className="list">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">What</th>
                <th scope="col">Status</th>
                <th scope="col" className="num">
                  Amount
                </th>
              </tr>
            </thead>
            <tbody>
              {payments.map((e, i) => (
                <tr key={i}>
                  <td>{dateTime(e.at)}</td>
                  <td className="wrap">
                    {e.type === 'checkout' ? 'Payment asked' : str(detail(e, 'type'))}
                    <span className="sub mono">{str(detail(e, 'paymentIntentID'))}</span>
                  </td>
                  <td>{str(detail(e, 'outcome')) || str(detail(e, 'status')) || '—'}</td>
                  <td className="num">
                    {e.type === 'checkout' ? money(num(detail(e, 'amount')), str(detail(e, 'currency')) || order.currency) : ''}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      <h3>Refunds</h3>
      {refunds.length === 0 ? (
        <p>No refunds.</p>
      ) : (
        <TableWrap label="Refunds">
          <table className="list">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Status</th>
                <th scope="col">Reason</th>
                <th scope="col" className="num">
                  Amount
                </th>
              </tr>
            </thead>
            <tbody>
              {refunds.map((e, i) => (
                <tr key={i}>
                  <td>{dateTime(e.at)}</td>
                  <td>
                    <Badge value={str(detail(e, 'status'))} />
                  </td>
                  <td className="wrap">{str(detail(e, 'reason')) || '—'}</td>
                  <td className="num">{money(num(detail(e, 'amount')), str(detail(e, 'currency')) || order.currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}

function Mails({ events }: { events: TimelineEvent[] }) {
  // One row per mail: its written event, with the time it was sent when it was.
  const mails = new Map<string, { written: TimelineEvent; sent?: TimelineEvent }>();
  for (const e of events) {
    const id = str(detail(e, 'mailID'));
    if (e.type === 'mail_written') mails.set(id, { written: e });
    if (e.type === 'mail_sent') {
      const known = mails.get(id);
      if (known) known.sent = e;
      else mails.set(id, { written: e, sent: e });
    }
  }
  return (
    <section className="panel" aria-labelledby="mails-title">
      <h2 id="mails-title">Mails</h2>
      {mails.size === 0 ? (
        <p>No mails about this order.</p>
      ) : (
        <TableWrap label="Mails about this order">
          <table className="list">
            <thead>
              <tr>
                <th scope="col">Mail</th>
                <th scope="col">To</th>
                <th scope="col">Status</th>
                <th scope="col">Written</th>
                <th scope="col">Sent</th>
              </tr>
            </thead>
            <tbody>
              {[...mails.values()].map(({ written, sent }) => (
                <tr key={str(detail(written, 'mailID'))}>
                  <td>
                    {str(detail(written, 'event'))}
                    <span className="sub">{str(detail(written, 'subject'))}</span>
                  </td>
                  <td className="wrap">{str(detail(written, 'email')) || '—'}</td>
                  <td>
                    <Badge value={str(detail(sent ?? written, 'status'))} />
                  </td>
                  <td>{dateTime(written.at)}</td>
                  <td>{sent ? dateTime(sent.at) : '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}

function Timeline({ events, loading, error, currency }: { events: TimelineEvent[]; loading: boolean; error: unknown; currency: string }) {
  return (
    <section className="panel" aria-labelledby="timeline-title">
      <h2 id="timeline-title">Timeline</h2>
      <ErrorMessage error={error} />
      {loading ? (
        <Loading label="Loading the timeline…" />
      ) : (
        <ol className="timeline">
          {events.map((e, i) => (
            <li key={i} className={`tl-${e.type}`}>
              <time dateTime={e.at}>{dateTime(e.at)}</time>
              <span className="tl-summary">{summary(e, currency)}</span>
              {e.type === 'note' && <blockquote className="note-text">{str(detail(e, 'text'))}</blockquote>}
              {e.type === 'refund' && str(detail(e, 'reason')) && <span className="sub">Reason: {str(detail(e, 'reason'))}</span>}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

/** The event's line, with cents shown as money where the service wrote a raw amount. */
function summary(e: TimelineEvent, currency: string): string {
  if (e.type === 'refund')
    return `Refund of ${money(num(detail(e, 'amount')), str(detail(e, 'currency')) || currency)}: ${str(detail(e, 'status'))}`;
  if (e.type === 'checkout') return `Checkout: payment of ${money(num(detail(e, 'amount')), str(detail(e, 'currency')) || currency)} asked`;
  if (e.type === 'note') return 'Staff note';
  return e.summary;
}

type Done = (message: string) => void;

/**
 * The actions column and the outcome of the last action, announced. When the control that was used went away
 * with the change (the cancel of an order now cancelled), focus would fall to the page: it comes to the outcome.
 */
function ActionsAside({ notice, children }: { notice: string; children: ReactNode }) {
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

function Actions({ order, refundable, timelineReady, onDone }: { order: Order; refundable: number; timelineReady: boolean; onDone: Done }) {
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

function useOrderChanged(order: Order) {
  const client = useQueryClient();
  return () =>
    Promise.all([
      client.invalidateQueries({ queryKey: ['order', order._id] }),
      client.invalidateQueries({ queryKey: ['orderTimeline', order._id] }),
      client.invalidateQueries({ queryKey: ['orders'] }),
    ]);
}

function RefundForm({ order, refundable, onDone }: { order: Order; refundable: number; onDone: Done }) {
  const changed = useOrderChanged(order);
  const [amount, setAmount] = useState(() => toMajor(refundable, order.currency));
  const [reason, setReason] = useState('');
  const [confirming, setConfirming] = useState<{ cents: number; key: string } | null>(null);
  const [localError, setLocalError] = useState<string | null>(null);
  const refund = useMutation({
    mutationFn: (input: { cents: number; key: string }) =>
      call(
        api.POST('/ecommerce/refundOrder', {
          params: { header: { 'idempotency-key': input.key } },
          body: { _orderID: order._id, amount: input.cents, ...(reason.trim() ? { reason: reason.trim() } : {}) },
        }),
      ),
    onSuccess: async (answer) => {
      setConfirming(null);
      onDone(`Refunded ${money(answer.data.amount, answer.data.currency)}. Payment status: ${answer.data.paymentStatus}.`);
      setReason('');
      await changed();
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    onDone('');
    refund.reset();
    const cents = toMinor(amount, order.currency);
    if (cents === null || cents < 1) return setLocalError('Enter an amount, such as 12.50.');
    if (cents > refundable) return setLocalError(`At most ${money(refundable, order.currency)} is left to refund.`);
    setLocalError(null);
    setConfirming({ cents, key: idempotencyKey() });
  };

  const amountError = localError ? new ApiFailure(400, localError, [{ field: 'amount', message: localError }]) : refund.error;
  return (
    <section className="panel" aria-labelledby="refund-title">
      <h2 id="refund-title">Refund</h2>
      <p>
        Left to refund: <strong>{money(refundable, order.currency)}</strong> of {money(order.total, order.currency)}
      </p>
      <form onSubmit={submit}>
        <TextField
          label={`Amount (${order.currency.toUpperCase()})`}
          field="amount"
          error={amountError}
          value={amount}
          onChange={(e) => setAmount(e.target.value)}
          inputMode="decimal"
          required
        />
        <TextArea
          label="Reason"
          field="reason"
          error={refund.error}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          rows={2}
          hint="Shown in the refund mail to the customer."
        />
        {!confirming && <ErrorMessage error={refund.error} shownFields={['amount', 'reason']} />}
        <button type="submit">Refund</button>
      </form>
      <ConfirmDialog
        open={confirming !== null}
        title="Refund this order?"
        confirmLabel="Confirm refund"
        busy={refund.isPending}
        error={refund.error}
        onConfirm={() => confirming && refund.mutate(confirming)}
        onClose={() => setConfirming(null)}
      >
        {confirming && (
          <p>
            {money(confirming.cents, order.currency)} of order {order.orderNumber || order.orderID} goes back to the customer's card
            {reason.trim() ? ` (reason: ${reason.trim()})` : ''}. {money(refundable - confirming.cents, order.currency)} will be left to
            refund.
          </p>
        )}
      </ConfirmDialog>
    </section>
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

function CancelOrder({ order, onDone }: { order: Order; onDone: Done }) {
  const changed = useOrderChanged(order);
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const cancel = useMutation({
    mutationFn: () =>
      call(api.POST('/ecommerce/cancelOrder', { body: { _orderID: order._id, ...(reason.trim() ? { reason: reason.trim() } : {}) } })),
    onSuccess: async (answer) => {
      setOpen(false);
      onDone(`Order cancelled: ${answer.data.cancelledItems} item${answer.data.cancelledItems === 1 ? '' : 's'} cancelled.`);
      await changed();
    },
  });
  return (
    <section className="panel danger-zone" aria-labelledby="cancel-title">
      <h2 id="cancel-title">Cancel</h2>
      <p>
        {order.status === 'Paid'
          ? 'The rest of the payment is refunded to the card first, the items become Cancelled and their access tokens expire.'
          : 'The items become Cancelled and their access tokens expire.'}
      </p>
      <button
        type="button"
        className="danger"
        onClick={() => {
          cancel.reset();
          onDone('');
          setOpen(true);
        }}
      >
        Cancel order
      </button>
      <ConfirmDialog
        open={open}
        title="Cancel this order?"
        confirmLabel="Yes, cancel order"
        danger
        busy={cancel.isPending}
        error={cancel.error}
        onConfirm={() => cancel.mutate()}
        onClose={() => setOpen(false)}
      >
        <p>Order {order.orderNumber || order.orderID} will be cancelled. This cannot be undone.</p>
        {order.status === 'Paid' && (
          <TextField label="Refund reason" field="reason" error={cancel.error} value={reason} onChange={(e) => setReason(e.target.value)} />
        )}
      </ConfirmDialog>
    </section>
  );
}
