import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call, type Schemas } from '../api';
import {
  Badge,
  ErrorMessage,
  FilterForm,
  type FilterProps,
  ListResults,
  Loading,
  Pager,
  SelectField,
  Status,
  TableWrap,
  TextField,
  useCan,
  useTitle,
  useDraft,
} from '../components/ui';
import { MailFrame } from '../components/MailFrame';
import { dateTime, dayStart } from '../format';
import { Link, useUrlFilters } from '../router';

type LogRequest = Schemas['ListSendLogRequest'];
const STATUSES = ['Pending', 'Sent', 'Failed'] as const;

export default function MailLog({ params }: { params: Record<string, string> }) {
  return params.id ? <MailDetail id={Number(params.id)} /> : <LogList />;
}

const FILTERS = ['status', 'email', 'event', 'from', 'to'] as const;
type Filters = Record<(typeof FILTERS)[number], string>;

function LogList() {
  useTitle('Send log');
  const { filters, apply, clear } = useUrlFilters(FILTERS);
  // A new set of filters starts again at the newest page.
  return <LogPages key={JSON.stringify(filters)} filters={filters} onApply={apply} onClear={clear} />;
}

function LogPages({ filters, onApply, onClear }: Omit<FilterProps<Filters>, 'error'>) {
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
      <LogFilters filters={filters} error={log.error} onApply={onApply} onClear={onClear} />
      <ErrorMessage error={log.error} shownFields={['status', 'email', 'event', 'from', 'to']} />
      <ListResults
        query={log}
        count={rows.length}
        loading="Loading mails…"
        empty="No mails match these filters."
        showing={`Showing ${rows.length} mail${rows.length === 1 ? '' : 's'}, page ${page}.`}
        pager={
          <Pager
            label="Send log"
            page={page}
            hasMore={!!next}
            busy={log.isFetching}
            onPage={(to) => (to < page ? setCursors(cursors.slice(0, -1)) : next && setCursors([...cursors, next]))}
          />
        }
      >
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
      </ListResults>
    </section>
  );
}

function LogFilters({ filters, error, onApply, onClear }: FilterProps<Filters>) {
  const { draft, bind } = useDraft(filters);
  return (
    <FilterForm label="Filter mails" onApply={() => onApply(draft)} onClear={onClear}>
      <SelectField
        label="Status"
        field="status"
        error={error}
        value={draft.status}
        onChange={bind('status')}
        options={[{ value: '', label: 'Any' }, ...STATUSES]}
      />
      <TextField
        label="Recipient"
        field="email"
        error={error}
        type="search"
        value={draft.email}
        onChange={bind('email')}
        autoComplete="off"
      />
      <TextField label="Event" field="event" error={error} type="search" value={draft.event} onChange={bind('event')} autoComplete="off" />
      <TextField label="Queued from" field="from" error={error} type="date" value={draft.from} onChange={bind('from')} />
      <TextField label="Queued to" field="to" error={error} type="date" value={draft.to} onChange={bind('to')} />
    </FilterForm>
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
