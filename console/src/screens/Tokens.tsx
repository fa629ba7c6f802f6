import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, call, type Schemas } from '../api';
import { ErrorMessage, Loading, Pager, SelectField, Status, TextField, useTitle } from '../components/ui';
import { setSearch, useSearch } from '../router';
import { TokenTable } from './tokens-shared';

type TokensRequest = Schemas['ListTokensRequest'];
const STATUSES = ['pending', 'gift_pending', 'active', 'expired'] as const;

interface Filters {
  productID: string;
  customerId: string;
  orderID: string;
  status: string;
  page: number;
}

function readFilters(search: URLSearchParams): Filters {
  const page = Number(search.get('page'));
  return {
    productID: search.get('productID') ?? '',
    customerId: search.get('customerId') ?? '',
    orderID: search.get('orderID') ?? '',
    status: search.get('status') ?? '',
    page: Number.isInteger(page) && page > 0 ? page : 1,
  };
}

function idOf(text: string): number | undefined {
  return /^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined;
}

export default function Tokens() {
  useTitle('Access tokens');
  const filters = readFilters(useSearch());
  const body: TokensRequest = { page: filters.page, perPage: 20 };
  const productID = idOf(filters.productID);
  const customerId = idOf(filters.customerId);
  const orderID = idOf(filters.orderID);
  if (productID !== undefined) body.productID = productID;
  if (customerId !== undefined) body.customerId = customerId;
  if (orderID !== undefined) body.orderID = orderID;
  if ((STATUSES as readonly string[]).includes(filters.status)) body.status = filters.status as TokensRequest['status'];
  const tokens = useQuery({
    queryKey: ['tokens', body],
    queryFn: () => call(api.POST('/ecommerce/listTokens', { body })),
    placeholderData: keepPreviousData,
  });
  const [done, setDone] = useState('');
  const rows = tokens.data?.data ?? [];

  return (
    <section aria-labelledby="tokens-title">
      <h1 id="tokens-title">Access tokens</h1>
      <TokenFilters key={JSON.stringify(filters)} filters={filters} error={tokens.error} />
      <ErrorMessage error={tokens.error} shownFields={['productID', 'customerId', 'orderID', 'status']} />
      <Status>{done}</Status>
      {tokens.isPending ? (
        <Loading label="Loading tokens…" />
      ) : (
        <>
          <Status>
            {tokens.isFetching
              ? 'Loading tokens…'
              : rows.length === 0
                ? 'No tokens match these filters.'
                : `Showing ${rows.length} tokens on page ${filters.page}.`}
          </Status>
          {rows.length > 0 && <TokenTable tokens={rows} label="Access tokens list" invalidate={[['tokens']]} onDone={setDone} />}
          <Pager
            label="Access tokens"
            page={filters.page}
            hasMore={tokens.data?.paging.hasMore ?? false}
            busy={tokens.isFetching}
            onPage={(page) => setSearch({ ...filters, page: page > 1 ? page : undefined })}
          />
        </>
      )}
    </section>
  );
}

function TokenFilters({ filters, error }: { filters: Filters; error: unknown }) {
  const [draft, setDraft] = useState(filters);
  const set = (key: keyof Filters) => (e: { target: { value: string } }) => setDraft({ ...draft, [key]: e.target.value });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setSearch({ ...draft, page: undefined });
  };
  return (
    <form className="filters" role="search" aria-label="Filter access tokens" onSubmit={apply}>
      <TextField
        label="Product ID"
        field="productID"
        error={error}
        inputMode="numeric"
        value={draft.productID}
        onChange={set('productID')}
        autoComplete="off"
      />
      <TextField
        label="Customer ID"
        field="customerId"
        error={error}
        inputMode="numeric"
        value={draft.customerId}
        onChange={set('customerId')}
        autoComplete="off"
      />
      <TextField
        label="Order ID"
        field="orderID"
        error={error}
        inputMode="numeric"
        value={draft.orderID}
        onChange={set('orderID')}
        autoComplete="off"
      />
      <SelectField
        label="Status"
        field="status"
        error={error}
        value={draft.status}
        onChange={set('status')}
        options={[{ value: '', label: 'Any' }, ...STATUSES]}
      />
      <div className="filter-actions">
        <button type="submit">Search</button>
        <button type="button" className="secondary" onClick={() => setSearch({})}>
          Clear filters
        </button>
      </div>
    </form>
  );
}
