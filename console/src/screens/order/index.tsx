import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api';
import { ErrorMessage, Loading, useTitle } from '../../components/ui';
import { Link } from '../../router';
import { COUNTED_REFUNDS, detail, num, str } from './shared';
import { Summary, Items } from './Summary';
import { Payments, Mails, Timeline } from './Activity';
import { ActionsAside, Actions } from './Actions';

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
