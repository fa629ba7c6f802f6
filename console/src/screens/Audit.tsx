import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api';
import { ErrorMessage, FilterForm, type FilterProps, ListResults, Pager, TableWrap, TextField, useTitle, useDraft } from '../components/ui';
import { dateTime, dayStart } from '../format';
import { useUrlFilters } from '../router';

type AuditRequest = Schemas['ListAuditRequest'];

const FILTERS = ['actor', 'action', 'table', 'recordId', 'from', 'to'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

function show(value: unknown): string {
  if (value === null || value === undefined) return '∅';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

export default function Audit() {
  useTitle('Audit log');
  const { filters, page, setPage, apply, clear } = useUrlFilters(FILTERS);
  const body: AuditRequest = { page, perPage: 20 };
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
      <AuditFilters key={JSON.stringify({ ...filters, page })} filters={filters} error={audit.error} onApply={apply} onClear={clear} />
      <ErrorMessage error={audit.error} shownFields={['actor', 'action', 'table', 'recordId', 'from', 'to']} />
      <ListResults
        query={audit}
        count={rows.length}
        loading="Loading the audit log…"
        fetching="Loading…"
        empty="No entries match these filters."
        showing={`Showing ${rows.length} entries on page ${page}.`}
        pager={
          <Pager label="Audit log" page={page} hasMore={audit.data?.paging.hasMore ?? false} busy={audit.isFetching} onPage={setPage} />
        }
      >
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
      </ListResults>
    </section>
  );
}

function AuditFilters({ filters, error, onApply, onClear }: FilterProps<Filters>) {
  const { draft, bind } = useDraft(filters);
  return (
    <FilterForm label="Filter the audit log" onApply={() => onApply(draft)} onClear={onClear}>
      <TextField
        label="Action"
        field="action"
        error={error}
        value={draft.action}
        onChange={bind('action')}
        placeholder="order.refund"
        autoComplete="off"
      />
      <TextField
        label="Staff ID"
        field="actor"
        error={error}
        value={draft.actor}
        onChange={bind('actor')}
        inputMode="numeric"
        autoComplete="off"
      />
      <TextField
        label="Table"
        field="table"
        error={error}
        value={draft.table}
        onChange={bind('table')}
        placeholder="core_orders"
        autoComplete="off"
      />
      <TextField label="Record ID" field="recordId" error={error} value={draft.recordId} onChange={bind('recordId')} autoComplete="off" />
      <TextField label="From" field="from" error={error} type="date" value={draft.from} onChange={bind('from')} />
      <TextField label="To" field="to" error={error} type="date" value={draft.to} onChange={bind('to')} />
    </FilterForm>
  );
}
