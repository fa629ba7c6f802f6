import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api';
import {
  Badge,
  ErrorMessage,
  FilterForm,
  type FilterProps,
  ListResults,
  Pager,
  SelectField,
  TableWrap,
  TextField,
  useTitle,
  useDraft,
} from '../components/ui';
import { dateTime, dayStart, money } from '../format';
import { Link, useUrlFilters } from '../router';

type ListOrdersRequest = Schemas['ListOrdersRequest'];
const STATUSES = ['New', 'Paid', 'Ordered'] as const;
const PAYMENT_STATUSES = ['Success', 'Failed', 'Partially Refunded', 'Refunded', 'Disputed'] as const;
const PER_PAGE = [20, 50, 100];

type Filters = Record<(typeof FILTERS)[number], string>;
const FILTERS = ['q', 'status', 'payment', 'from', 'to', 'perPage'] as const;

/** 20 a page unless the query string asks for another of PER_PAGE ('' : the default, left out of the URL). */
function normalize(filters: Filters): Filters {
  const perPage = Number(filters.perPage);
  return { ...filters, perPage: PER_PAGE.includes(perPage) && perPage !== 20 ? String(perPage) : '' };
}

function requestOf(filters: Filters, page: number): ListOrdersRequest {
  const body: ListOrdersRequest = { page, perPage: Number(filters.perPage) || 20 };
  if ((STATUSES as readonly string[]).includes(filters.status)) body.status = filters.status as ListOrdersRequest['status'];
  if ((PAYMENT_STATUSES as readonly string[]).includes(filters.payment))
    body.paymentStatus = filters.payment as ListOrdersRequest['paymentStatus'];
  const from = dayStart(filters.from);
  const to = dayStart(filters.to, 1); // the "to" day is included: orders before the next day's start
  if (from) body.from = from;
  if (to) body.to = to;
  // The search box: the order number or id, or the start of the billing email, first or last name.
  if (filters.q.trim()) body.search = filters.q.trim();
  return body;
}

export default function Orders() {
  useTitle('Orders');
  const { filters, page, setPage, apply, clear } = useUrlFilters(FILTERS, normalize);
  const body = requestOf(filters, page);
  const orders = useQuery({
    queryKey: ['orders', body],
    queryFn: () => call(api.POST('/ecommerce/listOrders', { body })),
    placeholderData: keepPreviousData,
  });
  const rows = orders.data?.data ?? [];

  return (
    <section aria-labelledby="orders-title">
      <h1 id="orders-title">Orders</h1>
      <OrderFilters key={JSON.stringify({ ...filters, page })} filters={filters} error={orders.error} onApply={apply} onClear={clear} />
      <ErrorMessage error={orders.error} shownFields={['search', 'status', 'paymentStatus', 'from', 'to']} />
      <ListResults
        query={orders}
        count={rows.length}
        loading="Loading orders…"
        empty="No orders match these filters."
        showing={`Showing ${rows.length} order${rows.length === 1 ? '' : 's'} on page ${page}.`}
        pager={
          <Pager label="Orders" page={page} hasMore={orders.data?.paging.hasMore ?? false} onPage={setPage} busy={orders.isFetching} />
        }
      >
        <TableWrap label="Orders list">
          <table className="list stack">
            <thead>
              <tr>
                <th scope="col">Order</th>
                <th scope="col">Created</th>
                <th scope="col">Customer</th>
                <th scope="col">Status</th>
                <th scope="col">Payment</th>
                <th scope="col" className="num">
                  Items
                </th>
                <th scope="col" className="num">
                  Total
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((order) => (
                <tr key={order._id}>
                  <th scope="row">
                    <Link to={`/orders/${encodeURIComponent(order._id)}`}>{order.orderNumber || `#${order.orderID}`}</Link>
                  </th>
                  <td data-label="Created">{dateTime(order.created)}</td>
                  <td data-label="Customer" className="wrap">
                    {order.billingEmail ?? '—'}
                  </td>
                  <td data-label="Status">
                    <Badge value={order.orderStatus} />
                  </td>
                  <td data-label="Payment">
                    <Badge value={order.paymentStatus} />
                  </td>
                  <td data-label="Items" className="num">
                    {order.items}
                  </td>
                  <td data-label="Total" className="num">
                    {money(order.total, order.currency)}
                    {order.refundedTotal > 0 && <span className="sub">−{money(order.refundedTotal, order.currency)} refunded</span>}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </ListResults>
    </section>
  );
}

function OrderFilters({ filters, error, onApply, onClear }: FilterProps<Filters>) {
  const { draft, bind } = useDraft(filters);
  return (
    <FilterForm label="Filter orders" onApply={() => onApply(draft)} onClear={onClear}>
      <TextField
        label="Search"
        field="search"
        error={error}
        type="search"
        value={draft.q}
        onChange={bind('q')}
        autoComplete="off"
        hint="Order number, email or customer name"
      />
      <SelectField
        label="Status"
        field="status"
        error={error}
        value={draft.status}
        onChange={bind('status')}
        options={[{ value: '', label: 'Any' }, ...STATUSES]}
      />
      <SelectField
        label="Payment status"
        field="paymentStatus"
        error={error}
        value={draft.payment}
        onChange={bind('payment')}
        options={[{ value: '', label: 'Any' }, ...PAYMENT_STATUSES]}
      />
      <TextField label="Created from" field="from" error={error} type="date" value={draft.from} onChange={bind('from')} />
      <TextField label="Created to" field="to" error={error} type="date" value={draft.to} onChange={bind('to')} />
      <SelectField label="Per page" value={draft.perPage || '20'} onChange={bind('perPage')} options={PER_PAGE.map(String)} />
    </FilterForm>
  );
}
