import { Badge, ErrorMessage, Loading, TableWrap } from '../../components/ui';
import { dateTime, money } from '../../format';
import { type Order, type TimelineEvent, detail, str, num } from './shared';

export function Payments({ order, events }: { order: Order; events: TimelineEvent[] }) {
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

export function Mails({ events }: { events: TimelineEvent[] }) {
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

export function Timeline({
  events,
  loading,
  error,
  currency,
}: {
  events: TimelineEvent[];
  loading: boolean;
  error: unknown;
  currency: string;
}) {
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
