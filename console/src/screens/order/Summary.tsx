import { Badge, TableWrap } from '../../components/ui';
import { dateTime, fullName, money } from '../../format';
import { type Order } from './shared';

export function Summary({ order, refunded, refundable }: { order: Order; refunded: number; refundable: number }) {
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

export function Items({ order }: { order: Order }) {
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
