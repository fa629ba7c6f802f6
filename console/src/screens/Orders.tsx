import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, call, type Schemas } from '../api';
import { Badge, ErrorMessage, Loading, Pager, SelectField, Status, TableWrap, TextField, useTitle } from '../components/ui';
import { dateTime, dayStart, money } from '../format';
import { Link, setSearch, useSearch } from '../router';

type ListOrdersRequest = Schemas['ListOrdersRequest'];
const STATUSES = ['New', 'Paid', 'Ordered'] as const;
const PAYMENT_STATUSES = ['Success', 'Failed', 'Partially Refunded', 'Refunded', 'Disputed'] as const;
const PER_PAGE = [20, 50, 100];

interface Filters {
  q: string;
  status: string;
  payment: string;
  from: string;
  to: string;
  page: number;
  perPage: number;
}

function readFilters(search: URLSearchParams): Filters {
  const page = Number(search.get('page'));
  const perPage = Number(search.get('perPage'));
  return {
    q: search.get('q') ?? '',
    status: search.get('status') ?? '',
    payment: search.get('payment') ?? '',
    from: search.get('from') ?? '',
    to: search.get('to') ?? '',
    page: Number.isInteger(page) && page > 0 ? page : 1,
    perPage: PER_PAGE.includes(perPage) ? perPage : 20,
  };
}

function requestOf(filters: Filters): ListOrdersRequest {
  const body: ListOrdersRequest = { page: filters.page, perPage: filters.perPage };
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
  const filters = readFilters(useSearch());
  const body = requestOf(filters);
  const orders = useQuery({
    queryKey: ['orders', body],
    queryFn: () => call(api.POST('/ecommerce/listOrders', { body })),
    placeholderData: keepPreviousData,
  });

  const setPage = (page: number) =>
    setSearch({ ...filters, page: page > 1 ? page : undefined, perPage: filters.perPage === 20 ? undefined : filters.perPage });
  const rows = orders.data?.data ?? [];

  return (
    <section aria-labelledby="orders-title">
      <h1 id="orders-title">Orders</h1>
      <OrderFilters key={JSON.stringify(filters)} filters={filters} error={orders.error} />
      <ErrorMessage error={orders.error} shownFields={['search', 'status', 'paymentStatus', 'from', 'to']} />
      {orders.isPending ? (
        <Loading label="Loading orders…" />
      ) : (
        <>
          <Status>
            {orders.isFetching
              ? 'Loading orders…'
              : rows.length === 0
                ? 'No orders match these filters.'
                : `Showing ${rows.length} order${rows.length === 1 ? '' : 's'} on page ${filters.page}.`}
          </Status>
          {rows.length > 0 && (
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
          )}
          <Pager
            label="Orders"
            page={filters.page}
            hasMore={orders.data?.paging.hasMore ?? false}
            onPage={setPage}
            busy={orders.isFetching}
          />
        </>
      )}
    </section>
  );
}

function OrderFilters({ filters, error }: { filters: Filters; error: unknown }) {
  const [draft, setDraft] = useState(filters);
  const set = (key: keyof Filters) => (event: { target: { value: string } }) => setDraft({ ...draft, [key]: event.target.value });

  const apply = (event: FormEvent) => {
    event.preventDefault();
    setSearch({ ...draft, page: undefined, perPage: Number(draft.perPage) === 20 ? undefined : draft.perPage });
  };
  const clear = () => setSearch({});

  return (
    <form className="filters" role="search" aria-label="Filter orders" onSubmit={apply}>
      <TextField
        label="Search"
        field="search"
        error={error}
        type="search"
        value={draft.q}
        onChange={set('q')}
        autoComplete="off"
        hint="Order number, email or customer name"
      />
      <SelectField
        label="Status"
        field="status"
        error={error}
        value={draft.status}
        onChange={set('status')}
        options={[{ value: '', label: 'Any' }, ...STATUSES]}
      />
      <SelectField
        label="Payment status"
        field="paymentStatus"
        error={error}
        value={draft.payment}
        onChange={set('payment')}
        options={[{ value: '', label: 'Any' }, ...PAYMENT_STATUSES]}
      />
      <TextField label="Created from" field="from" error={error} type="date" value={draft.from} onChange={set('from')} />
      <TextField label="Created to" field="to" error={error} type="date" value={draft.to} onChange={set('to')} />
      <SelectField
        label="Per page"
        value={String(draft.perPage)}
        onChange={(e) => setDraft({ ...draft, perPage: Number(e.target.value) })}
        options={PER_PAGE.map(String)}
      />
      <div className="filter-actions">
        <button type="submit">Search</button>
        <button type="button" className="secondary" onClick={clear}>
          Clear filters
        </button>
      </div>
    </form>
  );
}
