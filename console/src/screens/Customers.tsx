import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../api';
import { ConfirmDialog } from '../components/dialog';
import {
  Badge,
  ErrorMessage,
  FilterForm,
  type FilterProps,
  ListResults,
  Loading,
  Pager,
  Status,
  TableWrap,
  TextField,
  useCan,
  useTitle,
  useDraft,
} from '../components/ui';
import { dateTime, fullName, money } from '../format';
import { Link, pageOf, setSearch, useSearch, useUrlFilters } from '../router';
import { TokenTable } from './tokens-shared';

export default function Customers({ params }: { params: Record<string, string> }) {
  return params.id ? <CustomerDetail id={Number(params.id)} /> : <CustomerList />;
}

function CustomerList() {
  useTitle('Customers');
  const {
    filters: { q },
    page,
    setPage,
    apply,
    clear,
  } = useUrlFilters(['q']);
  const body = { page, perPage: 20, ...(q.trim() ? { search: q.trim() } : {}) };
  const customers = useQuery({
    queryKey: ['customers', body],
    queryFn: () => call(api.POST('/staff/customers', { body })),
    placeholderData: keepPreviousData,
  });
  const rows = customers.data?.data ?? [];
  return (
    <section aria-labelledby="customers-title">
      <h1 id="customers-title">Customers</h1>
      <CustomerSearch key={q} filters={{ q }} error={customers.error} onApply={apply} onClear={clear} />
      <ErrorMessage error={customers.error} shownFields={['search']} />
      <ListResults
        query={customers}
        count={rows.length}
        loading="Loading customers…"
        empty="No customers match."
        showing={`Showing ${rows.length} customers on page ${page}.`}
        pager={
          <Pager
            label="Customers"
            page={page}
            hasMore={customers.data?.paging.hasMore ?? false}
            busy={customers.isFetching}
            onPage={setPage}
          />
        }
      >
        <TableWrap label="Customers list">
          <table className="list stack">
            <thead>
              <tr>
                <th scope="col">Customer</th>
                <th scope="col">Email</th>
                <th scope="col">Mobile</th>
                <th scope="col">Account</th>
                <th scope="col">Since</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((c) => (
                <tr key={c.id}>
                  <th scope="row">
                    <Link to={`/customers/${c.id}`}>{fullName(c.firstname, c.lastname) || c.displayname || `Customer ${c.id}`}</Link>
                    <span className="sub">ID {c.id}</span>
                  </th>
                  <td data-label="Email" className="wrap">
                    {c.email ?? '—'}
                  </td>
                  <td data-label="Mobile">{c.mobile ?? '—'}</td>
                  <td data-label="Account">
                    {c.passwordSet ? 'Password set' : 'No password'}
                    {c.emailverified && <span className="sub">Email verified</span>}
                  </td>
                  <td data-label="Since">{dateTime(c.created)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </ListResults>
    </section>
  );
}

function CustomerSearch({ filters, error, onApply, onClear }: FilterProps<{ q: string }>) {
  const { draft, bind } = useDraft(filters);
  return (
    <FilterForm label="Find customers" onApply={() => onApply(draft)} onClear={onClear} clearLabel="Clear search">
      <TextField
        label="Search"
        field="search"
        error={error}
        type="search"
        value={draft.q}
        onChange={bind('q')}
        autoComplete="off"
        hint="Customer ID, or the start of the email, last name or full name"
      />
    </FilterForm>
  );
}

function CustomerDetail({ id }: { id: number }) {
  const can = useCan();
  const search = useSearch();
  const ordersPage = pageOf(search, 'ordersPage');
  const tokensPage = pageOf(search, 'tokensPage');
  const body = { customerId: id, ordersPage, tokensPage, perPage: 10 };
  const customer = useQuery({
    queryKey: ['customer', body],
    queryFn: () => call(api.POST('/staff/customers/get', { body })),
    placeholderData: keepPreviousData,
    enabled: Number.isInteger(id) && id > 0,
  });
  const [done, setDone] = useState('');
  const [confirming, setConfirming] = useState(false);
  const reset = useMutation({
    mutationFn: () => call(api.POST('/staff/customers/reset-link', { body: { customerId: id } })),
    onSuccess: (answer) => {
      setConfirming(false);
      setDone(`A password reset link was mailed to ${answer.data.email}.`);
    },
  });
  const data = customer.data?.data;
  const name = data
    ? fullName(data.customer.firstname, data.customer.lastname) || data.customer.displayname || data.customer.email || `Customer ${id}`
    : `Customer ${id}`;
  useTitle(name);
  const go = (key: 'ordersPage' | 'tokensPage', page: number) =>
    setSearch({ ordersPage, tokensPage, [key]: page > 1 ? page : undefined }, { replace: true });

  return (
    <section aria-labelledby="customer-title">
      <p className="crumbs">
        <Link to="/customers">Customers</Link> / {id}
      </p>
      <h1 id="customer-title">{name}</h1>
      {!Number.isInteger(id) || id < 1 ? (
        <p role="alert">There is no such customer.</p>
      ) : customer.isPending ? (
        <Loading label="Loading the customer…" />
      ) : !data ? (
        <ErrorMessage error={customer.error} />
      ) : (
        <>
          <section className="panel" aria-labelledby="account-title">
            <h2 id="account-title">Account</h2>
            <dl className="facts">
              <dt>Customer ID</dt>
              <dd>{data.customer.id}</dd>
              <dt>Email</dt>
              <dd className="wrap">
                {data.customer.email ?? '—'}{' '}
                {data.customer.email && <Badge value={data.customer.emailverified ? 'Verified' : 'Unverified'} />}
              </dd>
              <dt>Mobile</dt>
              <dd>{data.customer.mobile ?? '—'}</dd>
              <dt>Password</dt>
              <dd>{data.customer.passwordSet ? 'Set' : 'Not set'}</dd>
              <dt>Since</dt>
              <dd>{dateTime(data.customer.created)}</dd>
              <dt>Updated</dt>
              <dd>{dateTime(data.customer.updated)}</dd>
            </dl>
            {can('customers.invite') && data.customer.email && (
              <div className="actions">
                <button type="button" onClick={() => setConfirming(true)}>
                  Send reset link
                </button>
              </div>
            )}
            <ErrorMessage error={customer.error} />
            <Status>{done}</Status>
          </section>
          <section className="panel" aria-labelledby="customer-orders-title">
            <h2 id="customer-orders-title">Orders</h2>
            {data.orders.data.length === 0 ? (
              <p>No orders.</p>
            ) : (
              <TableWrap label="Orders of this customer">
                <table className="list stack">
                  <thead>
                    <tr>
                      <th scope="col">Order</th>
                      <th scope="col">Created</th>
                      <th scope="col">Status</th>
                      <th scope="col">Payment</th>
                      <th scope="col" className="num">
                        Total
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.orders.data.map((o) => (
                      <tr key={o._id}>
                        <th scope="row">
                          {can('orders.view') ? (
                            <Link to={`/orders/${encodeURIComponent(o._id)}`}>{o.orderNumber || `#${o.orderID}`}</Link>
                          ) : (
                            o.orderNumber || `#${o.orderID}`
                          )}
                        </th>
                        <td data-label="Created">{dateTime(o.created)}</td>
                        <td data-label="Status">
                          <Badge value={o.orderStatus} />
                        </td>
                        <td data-label="Payment">
                          <Badge value={o.paymentStatus} />
                        </td>
                        <td data-label="Total" className="num">
                          {money(o.total, o.currency)}
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </TableWrap>
            )}
            <Pager
              label="Orders of this customer"
              page={ordersPage}
              hasMore={data.orders.paging.hasMore}
              busy={customer.isFetching}
              onPage={(p) => go('ordersPage', p)}
            />
          </section>
          <section className="panel" aria-labelledby="customer-tokens-title">
            <h2 id="customer-tokens-title">Access tokens</h2>
            {data.tokens.data.length === 0 ? (
              <p>No access tokens.</p>
            ) : (
              <TokenTable
                tokens={data.tokens.data}
                label="Access tokens of this customer"
                invalidate={[['customer'], ['tokens']]}
                onDone={setDone}
              />
            )}
            <Pager
              label="Access tokens of this customer"
              page={tokensPage}
              hasMore={data.tokens.paging.hasMore}
              busy={customer.isFetching}
              onPage={(p) => go('tokensPage', p)}
            />
          </section>
          <ConfirmDialog
            open={confirming}
            title="Send a password reset link?"
            confirmLabel="Yes, send reset link"
            busy={reset.isPending}
            error={reset.error}
            onConfirm={() => reset.mutate()}
            onClose={() => setConfirming(false)}
          >
            <p>A mail with a link to set a new password goes to {data.customer.email}.</p>
          </ConfirmDialog>
        </>
      )}
    </section>
  );
}
