import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, call, type Schemas } from '../api';
import { Badge, ErrorMessage, Loading, SelectField, Status, TableWrap, TextField, useCan, useTitle } from '../components/ui';
import { MailFrame } from '../components/MailFrame';
import { dateTime, dayStart } from '../format';
import { Link, setSearch, useSearch } from '../router';

type LogRequest = Schemas['ListSendLogRequest'];
const STATUSES = ['Pending', 'Sent', 'Failed'] as const;

export default function MailLog({ params }: { params: Record<string, string> }) {
  return params.id ? <MailDetail id={Number(params.id)} /> : <LogList />;
}

interface Filters {
  status: string;
  email: string;
  event: string;
  from: string;
  to: string;
}

function readFilters(search: URLSearchParams): Filters {
  return {
    status: search.get('status') ?? '',
    email: search.get('email') ?? '',
    event: search.get('event') ?? '',
    from: search.get('from') ?? '',
    to: search.get('to') ?? '',
  };
}

function LogList() {
  useTitle('Send log');
  const filters = readFilters(useSearch());
  // A new set of filters starts again at the newest page.
  return <LogPages key={JSON.stringify(filters)} filters={filters} />;
}

function LogPages({ filters }: { filters: Filters }) {
  // Paging by cursor: the cursors of the pages seen so far, so "Previous page" goes back without offsets.
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const cursor = cursors[cursors.length - 1];
  const body: LogRequest = { perPage: 20 };
  if ((STATUSES as readonly string[]).includes(filters.status)) body.status = filters.status as LogRequest['status'];
  if (filters.email.trim()) body.email = filters.email.trim();
  if (filters.event.trim()) body.event = filters.event.trim();
  const from = dayStart(filters.from);
  const to = dayStart(filters.to, 1);
  if (from) body.from = from;
  if (to) body.to = to;
  if (cursor) body.cursor = cursor;
  const log = useQuery({
    queryKey: ['mailLog', body],
    queryFn: () => call(api.POST('/message/log', { body })),
    placeholderData: keepPreviousData,
  });
  const rows = log.data?.data ?? [];
  const next = log.data?.paging.nextCursor;
  const page = cursors.length;

  return (
    <section aria-labelledby="log-title">
      <h1 id="log-title">Send log</h1>
      <LogFilters filters={filters} error={log.error} />
      <ErrorMessage error={log.error} shownFields={['status', 'email', 'event', 'from', 'to']} />
      {log.isPending ? (
        <Loading label="Loading mails…" />
      ) : (
        <>
          <Status>
            {log.isFetching
              ? 'Loading mails…'
              : rows.length === 0
                ? 'No mails match these filters.'
                : `Showing ${rows.length} mail${rows.length === 1 ? '' : 's'}, page ${page}.`}
          </Status>
          {rows.length > 0 && (
            <TableWrap label="Mails">
              <table className="list stack">
                <thead>
                  <tr>
                    <th scope="col">Mail</th>
                    <th scope="col">Event</th>
                    <th scope="col">To</th>
                    <th scope="col">Status</th>
                    <th scope="col" className="num">
                      Attempts
                    </th>
                    <th scope="col">Queued</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((mail) => (
                    <tr key={mail.id}>
                      <th scope="row" className="wrap">
                        <Link to={`/mail/log/${mail.id}`}>{mail.subject || `Mail ${mail.id}`}</Link>
                        {mail.lastError && <span className="sub">{mail.lastError}</span>}
                      </th>
                      <td data-label="Event">{mail.event}</td>
                      <td data-label="To" className="wrap">
                        {mail.email ?? '(BCC only)'}
                      </td>
                      <td data-label="Status">
                        <Badge value={mail.status} />
                        {mail.sent && <span className="sub">{dateTime(mail.sent)}</span>}
                      </td>
                      <td data-label="Attempts" className="num">
                        {mail.attempts}
                      </td>
                      <td data-label="Queued">{dateTime(mail.created)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
          <nav className="pager" aria-label="Send log pages">
            <button
              type="button"
              className="secondary"
              disabled={page <= 1 || log.isFetching}
              onClick={() => setCursors(cursors.slice(0, -1))}
            >
              Previous page
            </button>
            <span>Page {page}</span>
            <button
              type="button"
              className="secondary"
              disabled={!next || log.isFetching}
              onClick={() => next && setCursors([...cursors, next])}
            >
              Next page
            </button>
          </nav>
        </>
      )}
    </section>
  );
}

function LogFilters({ filters, error }: { filters: Filters; error: unknown }) {
  const [draft, setDraft] = useState(filters);
  const set = (key: keyof Filters) => (e: { target: { value: string } }) => setDraft({ ...draft, [key]: e.target.value });
  const apply = (e: FormEvent) => {
    e.preventDefault();
    setSearch({ ...draft });
  };
  return (
    <form className="filters" role="search" aria-label="Filter mails" onSubmit={apply}>
      <SelectField
        label="Status"
        field="status"
        error={error}
        value={draft.status}
        onChange={set('status')}
        options={[{ value: '', label: 'Any' }, ...STATUSES]}
      />
      <TextField
        label="Recipient"
        field="email"
        error={error}
        type="search"
        value={draft.email}
        onChange={set('email')}
        autoComplete="off"
      />
      <TextField label="Event" field="event" error={error} type="search" value={draft.event} onChange={set('event')} autoComplete="off" />
      <TextField label="Queued from" field="from" error={error} type="date" value={draft.from} onChange={set('from')} />
      <TextField label="Queued to" field="to" error={error} type="date" value={draft.to} onChange={set('to')} />
      <div className="filter-actions">
        <button type="submit">Search</button>
        <button type="button" className="secondary" onClick={() => setSearch({})}>
          Clear filters
        </button>
      </div>
    </form>
  );
}

function MailDetail({ id }: { id: number }) {
  useTitle(`Mail ${id}`);
  const can = useCan();
  const client = useQueryClient();
  const mail = useQuery({
    queryKey: ['mail', id],
    queryFn: () => call(api.POST('/message/log/read', { body: { id } })),
    enabled: Number.isInteger(id) && id > 0,
  });
  const [done, setDone] = useState('');
  const retry = useMutation({
    mutationFn: () => call(api.POST('/message/log/retry', { body: { id } })),
    onSuccess: async (answer) => {
      client.setQueryData(['mail', id], answer);
      setDone('The mail is back in the queue: the sender takes it now.');
      await client.invalidateQueries({ queryKey: ['mailLog'] });
    },
  });
  const data = mail.data?.data;
  return (
    <section aria-labelledby="mail-title">
      <p className="crumbs">
        <Link to="/mail/log">Send log</Link> / Mail {id}
      </p>
      <h1 id="mail-title">{data ? data.subject || `Mail ${id}` : `Mail ${id}`}</h1>
      {!Number.isInteger(id) || id < 1 ? (
        <p role="alert">There is no such mail.</p>
      ) : mail.isPending ? (
        <Loading label="Loading the mail…" />
      ) : !data ? (
        <ErrorMessage error={mail.error} />
      ) : (
        <>
          <section className="panel" aria-labelledby="delivery-title">
            <h2 id="delivery-title">Delivery</h2>
            <dl className="facts">
              <dt>Status</dt>
              <dd>
                <Badge value={data.status} />
              </dd>
              <dt>Event</dt>
              <dd>{data.event}</dd>
              <dt>From</dt>
              <dd className="wrap">{data.from}</dd>
              <dt>To</dt>
              <dd className="wrap">{data.email ?? '(BCC only)'}</dd>
              {data.cc && (
                <>
                  <dt>CC</dt>
                  <dd className="wrap">{data.cc}</dd>
                </>
              )}
              {data.bcc && (
                <>
                  <dt>BCC</dt>
                  <dd className="wrap">{data.bcc}</dd>
                </>
              )}
              <dt>Attempts</dt>
              <dd>{data.attempts}</dd>
              {data.lastError && (
                <>
                  <dt>Last error</dt>
                  <dd className="wrap">{data.lastError}</dd>
                </>
              )}
              <dt>Queued</dt>
              <dd>{dateTime(data.created)}</dd>
              <dt>Sent</dt>
              <dd>{dateTime(data.sent)}</dd>
              {data.nextAttempt && (
                <>
                  <dt>Next attempt</dt>
                  <dd>{dateTime(data.nextAttempt)}</dd>
                </>
              )}
              {data.linkedTable === 'core_orders' && data.masterID !== null && (
                <>
                  <dt>About</dt>
                  <dd>Order {data.masterID}</dd>
                </>
              )}
            </dl>
            {can('mail.log.retry') && data.status === 'Failed' && (
              <div className="actions">
                <button type="button" onClick={() => retry.mutate()} disabled={retry.isPending}>
                  Retry
                </button>
              </div>
            )}
            <ErrorMessage error={retry.error} />
            <Status>{done}</Status>
          </section>
          <section className="panel" aria-labelledby="body-title">
            <h2 id="body-title">Body</h2>
            {data.html !== null && <MailFrame title="Mail body (HTML)" html={data.html} />}
            {data.text !== null &&
              (data.html !== null ? (
                <details>
                  <summary>Plain-text part</summary>
                  <pre className="block">{data.text}</pre>
                </details>
              ) : (
                <pre className="block">{data.text}</pre>
              ))}
          </section>
        </>
      )}
    </section>
  );
}
