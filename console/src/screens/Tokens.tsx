import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call, type Schemas } from '../api';
import {
  ErrorMessage,
  FilterForm,
  type FilterProps,
  ListResults,
  Pager,
  SelectField,
  Status,
  TextField,
  useTitle,
  useDraft,
} from '../components/ui';
import { useUrlFilters } from '../router';
import { TokenTable } from './tokens-shared';

type TokensRequest = Schemas['ListTokensRequest'];
const STATUSES = ['pending', 'gift_pending', 'active', 'expired'] as const;

const FILTERS = ['productID', 'customerId', 'orderID', 'status'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

function idOf(text: string): number | undefined {
  return /^\d+$/.test(text.trim()) ? Number(text.trim()) : undefined;
}

export default function Tokens() {
  useTitle('Access tokens');
  const { filters, page, setPage, apply, clear } = useUrlFilters(FILTERS);
  const body: TokensRequest = { page, perPage: 20 };
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
      <TokenFilters key={JSON.stringify({ ...filters, page })} filters={filters} error={tokens.error} onApply={apply} onClear={clear} />
      <ErrorMessage error={tokens.error} shownFields={['productID', 'customerId', 'orderID', 'status']} />
      <Status>{done}</Status>
      <ListResults
        query={tokens}
        count={rows.length}
        loading="Loading tokens…"
        empty="No tokens match these filters."
        showing={`Showing ${rows.length} tokens on page ${page}.`}
        pager={
          <Pager
            label="Access tokens"
            page={page}
            hasMore={tokens.data?.paging.hasMore ?? false}
            busy={tokens.isFetching}
            onPage={setPage}
          />
        }
      >
        <TokenTable tokens={rows} label="Access tokens list" invalidate={[['tokens']]} onDone={setDone} />
      </ListResults>
    </section>
  );
}

function TokenFilters({ filters, error, onApply, onClear }: FilterProps<Filters>) {
  const { draft, bind } = useDraft(filters);
  return (
    <FilterForm label="Filter access tokens" onApply={() => onApply(draft)} onClear={onClear}>
      <TextField
        label="Product ID"
        field="productID"
        error={error}
        inputMode="numeric"
        value={draft.productID}
        onChange={bind('productID')}
        autoComplete="off"
      />
      <TextField
        label="Customer ID"
        field="customerId"
        error={error}
        inputMode="numeric"
        value={draft.customerId}
        onChange={bind('customerId')}
        autoComplete="off"
      />
      <TextField
        label="Order ID"
        field="orderID"
        error={error}
        inputMode="numeric"
        value={draft.orderID}
        onChange={bind('orderID')}
        autoComplete="off"
      />
      <SelectField
        label="Status"
        field="status"
        error={error}
        value={draft.status}
        onChange={bind('status')}
        options={[{ value: '', label: 'Any' }, ...STATUSES]}
      />
    </FilterForm>
  );
}
