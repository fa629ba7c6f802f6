import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, call, type Schemas } from '../api';
import { ErrorMessage, Loading, Pager, Status, TableWrap, TextField, useTitle } from '../components/ui';
import { dateTime, dayStart } from '../format';
import { setSearch, useSearch } from '../router';

type AuditRequest = Schemas['ListAuditRequest'];

interface Filters {
  actor: string;
  action: string;
  table: string;
  recordId: string;
  from: string;
  to: string;
  page: number;
}

function readFilters(search: URLSearchParams): Filters {
  const page = Number(search.get('page'));
  return {
    actor: search.get('actor') ?? '',
    action: search.get('action') ?? '',
    table: search.get('table') ?? '',
    recordId: search.get('recordId') ?? '',
    from: search.get('from') ?? '',
    to: search.get('to') ?? '',
    page: Number.isInteger(page) && page > 0 ? page : 1,
  };
}

function show(value: unknown): string {
  if (value === null || value === undefined) return '∅';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export default function Audit() {
  useTitle('Audit log');
  const filters = readFilters(useSearch());
  const body: AuditRequest = { page: filters.page, perPage: 20 };
  if (filters.actor.trim()) body.actor = Number(filters.actor);
  if (filters.action.trim()) body.action = filters.action.trim();
  if (filters.table.trim()) body.table = filters.table.trim();
  if (filters.recordId.trim()) body.recordId = filters.recordId.trim();
  const from = dayStart(filters.from);
  const to = dayStart(filters.to, 1);
  if (from) body.from = from;
  if (to) body.to = to;
  const audit = useQuery({
    queryKey: ['audit', body],
    queryFn: () => call(api.POST('/staff/audit', { body })),
    placeholderData: keepPreviousData,
  });
  const rows = audit.data?.data ?? [];

  return (
    <section aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <AuditFilters key={JSON.stringify(filters)} filters={filters} error={audit.error} />
      <ErrorMessage error={audit.error} shownFields={['actor', 'action', 'table', 'recordId', 'from', 'to']} />
      {audit.isPending ? (
        <Loading label="Loading the audit log…" />
      ) : (
        <>
          <Status>
            {audit.isFetching
              ? 'Loading…'
              : rows.length === 0
                ? 'No entries match these filters.'
                : `Showing ${rows.length} entries on page ${filters.page}.`}
          </Status>
          {rows.length > 0 && (
            <TableWrap label="Audit entries">
              <table className="list">
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Action</th>
                    <th scope="col">Record</th>
                    <th scope="col">By</th>
                    <th scope="col">Changes</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((row) => (
                    <tr key={row.id}>
                      <td>
                        {dateTime(row.created)}
                        {row.ip && <span className="sub">{row.ip}</span>}
                      </td>
                      <th scope="row">{row.action}</th>
                      <td className="wrap">
                        {row.table}
                        {row.recordId && <span className="sub">#{row.recordId}</span>}
                      </td>
                      <td>{row.actor ? `Staff ${row.actor.id}` : 'System'}</td>
                      <td className="wrap">
                        <ul className="changes">
                          {Object.entries(row.changes).map(([field, change]) => {
                            const c = change as { before?: unknown; after?: unknown } | null;
                            return (
                              <li key={field}>
                                <code>{field}</code>:{' '}
                                {c && typeof c === 'object' && ('before' in c || 'after' in c)
                                  ? `${show(c.before)} → ${show(c.after)}`
                                  : show(change)}
                              </li>
                            );
                          })}
                        </ul>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
          <Pager
            label="Audit log"
            page={filters.page}
            hasMore={audit.data?.paging.hasMore ?? false}
            busy={audit.isFetching}
            onPage={(page) => setSearch({ ...filters, page: page > 1 ? page : undefined })}
          />
        </>
      )}
    </section>
  );
}

function AuditFilters({ filters, error }: { filters: Filters; error: unknown }) {
  const [draft, setDraft] = useState(filters);
  const set = (key: keyof Filters) => (e: { target: { value: string } }) => setDraft({ ...draft, [key]: e.target.value });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setSearch({ ...draft, page: undefined });
  };
  return (
    <form className="filters" role="search" aria-label="Filter the audit log" onSubmit={apply}>
      <TextField
        label="Action"
        field="action"
        error={error}
        value={draft.action}
        onChange={set('action')}
        placeholder="order.refund"
        autoComplete="off"
      />
      <TextField
        label="Staff ID"
        field="actor"
        error={error}
        value={draft.actor}
        onChange={set('actor')}
        inputMode="numeric"
        autoComplete="off"
      />
      <TextField
        label="Table"
        field="table"
        error={error}
        value={draft.table}
        onChange={set('table')}
        placeholder="core_orders"
        autoComplete="off"
      />
      <TextField label="Record ID" field="recordId" error={error} value={draft.recordId} onChange={set('recordId')} autoComplete="off" />
      <TextField label="From" field="from" error={error} type="date" value={draft.from} onChange={set('from')} />
      <TextField label="To" field="to" error={error} type="date" value={draft.to} onChange={set('to')} />
      <div className="filter-actions">
        <button type="submit">Search</button>
        <button type="button" className="secondary" onClick={() => setSearch({})}>
          Clear filters
        </button>
      </div>
    </form>
  );
}
