import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, call, type Schemas } from '../api';
import { ApiFailure } from '../api-failure';
import { ConfirmDialog } from '../components/dialog';
import {
  Badge,
  Checkbox,
  ErrorMessage,
  Loading,
  Pager,
  SelectField,
  Status,
  TableWrap,
  TextArea,
  TextField,
  useCan,
  useTitle,
} from '../components/ui';
import { dateTime } from '../format';
import { Link, navigate, setSearch, useSearch } from '../router';

type Table = Schemas['ContentTableDto'];
type Column = Schemas['EditableColumnDto'];
type Version = Schemas['ContentVersion'];
type Row = Record<string, unknown>;
const STAGES = ['draft', 'staged', 'published', 'expired'] as const;
type Stage = (typeof STAGES)[number];
const STAGE_LABEL: Record<Stage, string> = { draft: 'Drafts', staged: 'Staged', published: 'Published', expired: 'Expired' };

export default function Content({ params }: { params: Record<string, string> }) {
  if (!params.table) return <Tables />;
  if (!params.id) return <Rows table={params.table} />;
  if (params.id === 'new') return <NewRecord table={params.table} />;
  return <RecordPage table={params.table} id={Number(params.id)} />;
}

function useTables() {
  return useQuery({ queryKey: ['contentTables'], queryFn: () => call(api.POST('/content/tables', { body: {} })), staleTime: 60_000 });
}

function str(value: unknown): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function Tables() {
  useTitle('Content');
  const tables = useTables();
  const rows = tables.data?.data ?? [];
  return (
    <section aria-labelledby="content-title">
      <h1 id="content-title">Content</h1>
      <ErrorMessage error={tables.error} />
      {tables.isPending ? (
        <Loading label="Loading content tables…" />
      ) : rows.length === 0 ? (
        <p>This shop has no content tables.</p>
      ) : (
        <TableWrap label="Content tables">
          <table className="list stack">
            <thead>
              <tr>
                <th scope="col">Table</th>
                {STAGES.map((s) => (
                  <th key={s} scope="col" className="num">
                    {STAGE_LABEL[s]}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((t) => (
                <tr key={t.table}>
                  <th scope="row">
                    <Link to={`/content/${encodeURIComponent(t.table)}`}>{t.table}</Link>
                    {t.live && <span className="sub">Live table (no versions)</span>}
                  </th>
                  {STAGES.map((s) => (
                    <td key={s} data-label={STAGE_LABEL[s]} className="num">
                      {t.stages[s]}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}

function Rows({ table }: { table: string }) {
  useTitle(`Content: ${table}`);
  const can = useCan();
  const search = useSearch();
  const stage = (STAGES as readonly string[]).includes(search.get('stage') ?? '') ? (search.get('stage') as Stage) : 'draft';
  const pageNumber = Number(search.get('page'));
  const page = Number.isInteger(pageNumber) && pageNumber > 0 ? pageNumber : 1;
  const tables = useTables();
  const info = tables.data?.data.find((t) => t.table === table);
  const body = { table, stage, page, perPage: 20 };
  const rows = useQuery({
    queryKey: ['contentRows', body],
    queryFn: () => call(api.POST('/content/rows', { body })),
    placeholderData: keepPreviousData,
  });
  const list = (rows.data?.data ?? []) as Row[];
  // One column besides the title: with the three dates, a second one pushed Expires out of sight at 1280 px.
  const extra = (info?.columns ?? []).filter((c) => c.name !== info?.titleField && c.kind !== 'json').slice(0, 1);

  return (
    <section aria-labelledby="rows-title">
      <p className="crumbs">
        <Link to="/content">Content</Link> / {table}
      </p>
      <h1 id="rows-title">{table}</h1>
      {can('content.edit') && info && !info.live && (
        <p>
          <Link to={`/content/${encodeURIComponent(table)}/new`} className="button-link">
            New record
          </Link>
        </p>
      )}
      <nav className="tabs" aria-label="Stages">
        <ul>
          {STAGES.map((s) => (
            <li key={s}>
              <Link to={`/content/${encodeURIComponent(table)}?stage=${s}`} aria-current={s === stage ? 'page' : undefined}>
                {STAGE_LABEL[s]}
                {info && <span className="count"> ({info.stages[s]})</span>}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <ErrorMessage error={rows.error ?? tables.error} />
      {rows.isPending ? (
        <Loading label="Loading records…" />
      ) : (
        <>
          <Status>
            {rows.isFetching
              ? 'Loading records…'
              : list.length === 0
                ? `No ${stage} records.`
                : `Showing ${list.length} records on page ${page}.`}
          </Status>
          {list.length > 0 && (
            <TableWrap label={`${STAGE_LABEL[stage]} records`}>
              <table className="list stack">
                <thead>
                  <tr>
                    <th scope="col">Record</th>
                    <th scope="col">Status</th>
                    {extra.map((c) => (
                      <th key={c.name} scope="col">
                        {c.name}
                      </th>
                    ))}
                    <th scope="col">Updated</th>
                    <th scope="col">Publishes</th>
                    <th scope="col">Expires</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((r) => {
                    const id = Number(r.meta_master_id ?? r.id);
                    return (
                      <tr key={`${id}:${str(r.meta_current_id)}`}>
                        <th scope="row" className="wrap">
                          <Link to={`/content/${encodeURIComponent(table)}/${id}`}>{str(r.meta_title) || `Record ${id}`}</Link>
                          <span className="sub">ID {id}</span>
                        </th>
                        <td data-label="Status">
                          <Badge value={str(r.meta_status)} />
                        </td>
                        {extra.map((c) => (
                          <td key={c.name} data-label={c.name} className="wrap">
                            {str(r[c.name]).slice(0, 80) || '—'}
                          </td>
                        ))}
                        <td data-label="Updated">{dateTime(str(r.meta_updated))}</td>
                        <td data-label="Publishes">{dateTime(str(r.meta_publish_set_date))}</td>
                        <td data-label="Expires">{r.meta_publish_expire_date ? dateTime(str(r.meta_publish_expire_date)) : 'Never'}</td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
            </TableWrap>
          )}
          <Pager
            label="Records"
            page={page}
            hasMore={rows.data?.paging.hasMore ?? false}
            busy={rows.isFetching}
            onPage={(p) => setSearch({ stage, page: p > 1 ? p : undefined })}
          />
        </>
      )}
    </section>
  );
}

/** A column's value as the form holds it (text; booleans as 'true' / 'false'). */
function toInput(column: Column, value: unknown): string {
  if (value === null || value === undefined) return column.kind === 'boolean' ? 'false' : '';
  switch (column.kind) {
    case 'boolean':
      return value === true || value === 1 || value === '1' || value === 'true' ? 'true' : 'false';
    case 'datetime': {
      const date = new Date(String(value));
      if (Number.isNaN(date.getTime())) return String(value);
      const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
      return local.toISOString().slice(0, 16);
    }
    case 'json':
      return JSON.stringify(value, null, 2);
    default:
      return typeof value === 'object' ? JSON.stringify(value) : String(value);
  }
}

/** The form's text as the column's value; an Error names what is wrong. */
function fromInput(column: Column, text: string): unknown {
  const blank = text.trim() === '';
  switch (column.kind) {
    case 'boolean':
      return text === 'true';
    case 'integer':
      if (blank) return null;
      if (!/^-?\d+$/.test(text.trim())) return new Error(`${column.name} must be a whole number`);
      return Number(text.trim());
    case 'number':
      if (blank) return null;
      if (Number.isNaN(Number(text.trim()))) return new Error(`${column.name} must be a number`);
      return Number(text.trim());
    case 'datetime': {
      if (blank) return null;
      const date = new Date(text);
      return Number.isNaN(date.getTime()) ? new Error(`${column.name} must be a date and time`) : date.toISOString();
    }
    case 'json':
      if (blank) return null;
      try {
        return JSON.parse(text) as unknown;
      } catch {
        return new Error(`${column.name} is not valid JSON`);
      }
    default:
      return blank && column.nullable ? null : text;
  }
}

/** The fields of a record, one control per editable column, typed by the column's kind. */
function RecordFields({
  columns,
  values,
  onChange,
  error,
  readOnly,
}: {
  columns: Column[];
  values: Record<string, string>;
  onChange: (name: string, value: string) => void;
  error: unknown;
  readOnly: boolean;
}) {
  return (
    <>
      {columns.map((c) => {
        const common = { key: c.name, label: c.name, field: `data.${c.name}`, error, readOnly };
        const value = values[c.name] ?? '';
        const hint = [c.kind, c.nullable ? 'optional' : 'required', c.maxLength ? `at most ${c.maxLength} characters` : '']
          .filter(Boolean)
          .join(', ');
        switch (c.kind) {
          case 'boolean':
            return (
              <Checkbox
                key={c.name}
                label={c.name}
                checked={value === 'true'}
                disabled={readOnly}
                onChange={(e) => onChange(c.name, e.target.checked ? 'true' : 'false')}
              />
            );
          case 'json':
            return (
              <TextArea
                {...common}
                className="mono-area"
                rows={5}
                value={value}
                hint={hint}
                onChange={(e) => onChange(c.name, e.target.value)}
              />
            );
          case 'integer':
          case 'number':
            return (
              <TextField
                {...common}
                inputMode={c.kind === 'integer' ? 'numeric' : 'decimal'}
                value={value}
                hint={hint}
                onChange={(e) => onChange(c.name, e.target.value)}
              />
            );
          case 'datetime':
            return (
              <TextField {...common} type="datetime-local" value={value} hint={hint} onChange={(e) => onChange(c.name, e.target.value)} />
            );
          default:
            return c.maxLength !== null && c.maxLength <= 255 ? (
              <TextField {...common} maxLength={c.maxLength} value={value} hint={hint} onChange={(e) => onChange(c.name, e.target.value)} />
            ) : (
              <TextArea {...common} rows={4} value={value} hint={hint} onChange={(e) => onChange(c.name, e.target.value)} />
            );
        }
      })}
    </>
  );
}

/** The values to send: every column (create) or only those changed (edit); a local failure names bad ones. */
function collect(
  columns: Column[],
  values: Record<string, string>,
  initial: Record<string, string> | null,
): { data: Row; failure?: ApiFailure } {
  const data: Row = {};
  const errors: { field: string; message: string }[] = [];
  for (const c of columns) {
    const text = values[c.name] ?? '';
    if (initial && text === (initial[c.name] ?? '')) continue;
    if (!initial && text.trim() === '' && c.kind !== 'boolean') continue;
    const value = fromInput(c, text);
    if (value instanceof Error) errors.push({ field: `data.${c.name}`, message: value.message });
    else data[c.name] = value;
  }
  return errors.length ? { data, failure: new ApiFailure(400, 'Check the fields marked', errors) } : { data };
}

function NewRecord({ table }: { table: string }) {
  useTitle(`New record: ${table}`);
  const client = useQueryClient();
  const tables = useTables();
  const info = tables.data?.data.find((t) => t.table === table);
  const [values, setValues] = useState<Record<string, string>>({});
  const [local, setLocal] = useState<ApiFailure | null>(null);
  const create = useMutation({
    mutationFn: (data: Row) => call(api.POST('/content/create', { body: { table, data } })),
    onSuccess: async (answer) => {
      await Promise.all([
        client.invalidateQueries({ queryKey: ['contentTables'] }),
        client.invalidateQueries({ queryKey: ['contentRows'] }),
      ]);
      navigate(`/content/${encodeURIComponent(table)}/${answer.data.Master_ID}`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!info) return;
    const { data, failure } = collect(info.columns, values, null);
    setLocal(failure ?? null);
    if (!failure) create.mutate(data);
  };
  return (
    <section aria-labelledby="new-record-title">
      <p className="crumbs">
        <Link to="/content">Content</Link> / <Link to={`/content/${encodeURIComponent(table)}`}>{table}</Link> / New
      </p>
      <h1 id="new-record-title">New {table} record</h1>
      <ErrorMessage error={tables.error} />
      {tables.isPending ? (
        <Loading />
      ) : !info ? (
        <p role="alert">There is no content table {table}.</p>
      ) : (
        <form className="panel wide record-form" onSubmit={submit}>
          <RecordFields
            columns={info.columns}
            values={values}
            onChange={(name, value) => setValues({ ...values, [name]: value })}
            error={local ?? create.error}
            readOnly={false}
          />
          <ErrorMessage error={local ?? create.error} shownFields={info.columns.map((c) => `data.${c.name}`)} />
          <button type="submit" disabled={create.isPending}>
            Create record
          </button>
        </form>
      )}
    </section>
  );
}

function RecordPage({ table, id }: { table: string; id: number }) {
  const tables = useTables();
  const info = tables.data?.data.find((t) => t.table === table);
  const record = useQuery({
    queryKey: ['contentRecord', table, id],
    enabled: !!info && Number.isInteger(id) && id > 0,
    queryFn: () =>
      call(
        api.POST('/getDataRows', {
          body: {
            table,
            fields: '*',
            ...(info?.live ? { isAppGrid: true } : { isLive: true }),
            record: true,
            page: 1,
            perPage: 1,
            whereConditions: {
              operator: 'AND',
              conditions: [{ field: info?.live ? 'id' : 'meta_master_id', operator: 'equals', value: id }],
            },
          },
        }),
      ),
  });
  const row = (record.data?.data ?? null) as Row | null;
  const title = str(row?.meta_title) || (info?.titleField ? str(row?.[info.titleField]) : '') || `Record ${id}`;
  useTitle(`${title} · ${table}`);
  const [notice, setNotice] = useState('');

  return (
    <section aria-labelledby="record-title">
      <p className="crumbs">
        <Link to="/content">Content</Link> / <Link to={`/content/${encodeURIComponent(table)}`}>{table}</Link> / {id}
      </p>
      <h1 id="record-title">{title}</h1>
      <ErrorMessage error={tables.error ?? record.error} />
      <Status>{notice}</Status>
      {tables.isPending || (record.isPending && record.fetchStatus !== 'idle') ? (
        <Loading label="Loading the record…" />
      ) : !info ? (
        <p role="alert">There is no content table {table}.</p>
      ) : !row ? (
        !record.error && (
          <p role="alert">
            There is no record {id} in {table}.
          </p>
        )
      ) : (
        <>
          <div className="split">
            <Editor key={str(row.meta_current_id ?? row.updated)} table={info} id={id} row={row} onDone={setNotice} />
            {!info.live && <Lifecycle table={table} id={id} row={row} onDone={setNotice} />}
          </div>
          {!info.live && <History table={table} id={id} onDone={setNotice} />}
        </>
      )}
    </section>
  );
}

function useRecordChanged(table: string, id: number) {
  const client = useQueryClient();
  return () =>
    Promise.all([
      client.invalidateQueries({ queryKey: ['contentRecord', table, id] }),
      client.invalidateQueries({ queryKey: ['contentHistory', table, id] }),
      client.invalidateQueries({ queryKey: ['contentRows'] }),
      client.invalidateQueries({ queryKey: ['contentTables'] }),
    ]);
}

function Editor({ table, id, row, onDone }: { table: Table; id: number; row: Row; onDone: (m: string) => void }) {
  const can = useCan();
  const editable = can('content.edit');
  const changed = useRecordChanged(table.table, id);
  const initial = Object.fromEntries(table.columns.map((c) => [c.name, toInput(c, row[c.name])]));
  const [values, setValues] = useState<Record<string, string>>(initial);
  const [local, setLocal] = useState<ApiFailure | null>(null);
  const save = useMutation({
    mutationFn: (data: Row) =>
      call(
        api.POST('/content/edit', {
          body: {
            table: table.table,
            masterId: id,
            data,
            ...(typeof row.meta_current_id === 'number' ? { expectedCurrentId: row.meta_current_id } : {}),
          },
        }),
      ),
    onSuccess: async (answer) => {
      onDone(answer.message || 'Saved.');
      await changed();
    },
  });
  const dirty = table.columns.some((c) => (values[c.name] ?? '') !== (initial[c.name] ?? ''));
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const { data, failure } = collect(table.columns, values, initial);
    setLocal(failure ?? null);
    onDone('');
    if (!failure && Object.keys(data).length > 0) save.mutate(data);
  };
  const error = local ?? save.error;
  return (
    <form className="panel wide record-form" onSubmit={submit} aria-labelledby="fields-title">
      <h2 id="fields-title">Fields</h2>
      {!table.live && (
        <p className="hint">
          Version {str(row.meta_current_id)} · <Badge value={str(row.meta_status)} /> · updated {dateTime(str(row.meta_updated))}
        </p>
      )}
      <RecordFields
        columns={table.columns}
        values={values}
        onChange={(name, value) => setValues({ ...values, [name]: value })}
        error={error}
        readOnly={!editable}
      />
      <ErrorMessage error={error} shownFields={table.columns.map((c) => `data.${c.name}`)} />
      {editable && (
        <div className="actions">
          <button type="submit" disabled={save.isPending || !dirty}>
            Save changes
          </button>
          <button type="button" className="secondary" disabled={!dirty} onClick={() => setValues(initial)}>
            Discard changes
          </button>
        </div>
      )}
      <Status>{dirty ? 'Unsaved changes.' : ''}</Status>
    </form>
  );
}

function localDateTime(text: string): string | undefined {
  if (!text) return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function Lifecycle({ table, id, row, onDone }: { table: string; id: number; row: Row; onDone: (m: string) => void }) {
  const can = useCan();
  const changed = useRecordChanged(table, id);
  const [publishAt, setPublishAt] = useState('');
  const [expireAt, setExpireAt] = useState('');
  const [confirm, setConfirm] = useState<'expire' | 'delete' | null>(null);
  const act = useMutation({
    mutationFn: (action: 'stage' | 'publish' | 'promote' | 'expire' | 'delete') => {
      const schedule = {
        ...(localDateTime(publishAt) ? { publishSetDate: localDateTime(publishAt) } : {}),
        ...(localDateTime(expireAt) ? { publishExpireDate: localDateTime(expireAt) } : {}),
      };
      const record = { table, masterId: id };
      switch (action) {
        case 'stage':
          return call(api.POST('/content/stage', { body: { ...record, ...schedule } }));
        case 'publish':
          return call(api.POST('/content/publish', { body: { ...record, ...schedule } }));
        case 'promote':
          return call(api.POST('/content/promote', { body: { ...record, ...schedule } }));
        case 'expire':
          return call(api.POST('/content/expire', { body: record }));
        case 'delete':
          return call(api.POST('/content/delete', { body: record }));
      }
    },
    onSuccess: async (answer, action) => {
      setConfirm(null);
      onDone(`${answer.message || 'Done'}: the version is now ${answer.data.Status}.`);
      if (action === 'delete') navigate(`/content/${encodeURIComponent(table)}`);
      await changed();
    },
  });
  const canEdit = can('content.edit');
  const canPublish = can('content.publish');
  if (!canEdit && !canPublish)
    return (
      <section className="panel" aria-labelledby="lifecycle-title">
        <h2 id="lifecycle-title">Publishing</h2>
        <PublishFacts table={table} id={id} row={row} />
      </section>
    );
  return (
    <section className="panel wide" aria-labelledby="lifecycle-title">
      <h2 id="lifecycle-title">Publishing</h2>
      <PublishFacts table={table} id={id} row={row} />
      <TextField
        label="Publish at"
        field="publishSetDate"
        error={act.error}
        type="datetime-local"
        value={publishAt}
        onChange={(e) => setPublishAt(e.target.value)}
        hint="Blank: now. A later time schedules it."
      />
      <TextField
        label="Expires at"
        field="publishExpireDate"
        error={act.error}
        type="datetime-local"
        value={expireAt}
        onChange={(e) => setExpireAt(e.target.value)}
        hint="Blank: never. Readers stop seeing it then."
      />
      <div className="actions">
        {canEdit && (
          <button type="button" className="secondary" disabled={act.isPending} onClick={() => act.mutate('stage')}>
            Stage
          </button>
        )}
        {canPublish && (
          <>
            <button type="button" disabled={act.isPending} onClick={() => act.mutate('publish')}>
              Publish
            </button>
            <button type="button" className="secondary" disabled={act.isPending} onClick={() => act.mutate('promote')}>
              Promote staged
            </button>
          </>
        )}
      </div>
      {canPublish && (
        <div className="actions">
          <button type="button" className="danger" disabled={act.isPending} onClick={() => setConfirm('expire')}>
            Expire now
          </button>
          <button type="button" className="danger" disabled={act.isPending} onClick={() => setConfirm('delete')}>
            Delete record
          </button>
        </div>
      )}
      {!confirm && <ErrorMessage error={act.error} shownFields={['publishSetDate', 'publishExpireDate']} />}
      <ConfirmDialog
        open={confirm !== null}
        danger
        title={confirm === 'delete' ? 'Delete this record?' : 'Expire this record now?'}
        confirmLabel={confirm === 'delete' ? 'Yes, delete record' : 'Yes, expire now'}
        busy={act.isPending}
        error={act.error}
        onConfirm={() => confirm && act.mutate(confirm)}
        onClose={() => setConfirm(null)}
      >
        <p>
          {confirm === 'delete'
            ? 'No version of it stays visible to readers. The versions are kept.'
            : 'Readers stop seeing its published version at once.'}
        </p>
      </ConfirmDialog>
    </section>
  );
}

function useHistory(table: string, id: number) {
  return useQuery({
    queryKey: ['contentHistory', table, id],
    queryFn: () => call(api.POST('/content/history', { body: { table, masterId: id } })),
  });
}

/** The current version's status and dates: /getDataRows gives no publication dates, the history has them. */
function PublishFacts({ table, id, row }: { table: string; id: number; row: Row }) {
  const history = useHistory(table, id);
  const current = history.data?.data.find((v) => v.IsCurrent === 1);
  return (
    <dl className="facts">
      <dt>Status</dt>
      <dd>
        <Badge value={str(row.meta_status)} />
      </dd>
      <dt>Publishes</dt>
      <dd>{dateTime(current?.Publish_Set_Date)}</dd>
      <dt>Expires</dt>
      <dd>{!current ? '—' : current.Publish_Expire_Date ? dateTime(current.Publish_Expire_Date) : 'Never'}</dd>
    </dl>
  );
}

function History({ table, id, onDone }: { table: string; id: number; onDone: (m: string) => void }) {
  const can = useCan();
  const changed = useRecordChanged(table, id);
  const history = useHistory(table, id);
  const versions = history.data?.data ?? [];
  const [rollingBack, setRollingBack] = useState<Version | null>(null);
  const rollback = useMutation({
    mutationFn: (v: Version) => call(api.POST('/content/rollback', { body: { table, masterId: id, toCurrentId: v.Current_ID } })),
    onSuccess: async (answer, v) => {
      setRollingBack(null);
      onDone(`Rolled back to version ${v.Current_ID}: the current version is now ${answer.data.Current_ID} (${answer.data.Status}).`);
      await changed();
    },
  });
  return (
    <section className="panel" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      <ErrorMessage error={history.error} />
      {history.isPending ? (
        <Loading label="Loading versions…" />
      ) : versions.length === 0 ? (
        <p>No versions.</p>
      ) : (
        <>
          <TableWrap label="Versions">
            <table className="list">
              <thead>
                <tr>
                  <th scope="col">Version</th>
                  <th scope="col">Status</th>
                  <th scope="col">Title</th>
                  <th scope="col">Updated</th>
                  <th scope="col">By</th>
                  {can('content.publish') && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {[...versions].reverse().map((v) => (
                  <tr key={v.ID}>
                    <th scope="row">
                      {v.Current_ID}
                      {v.IsCurrent === 1 && <span className="sub">Current</span>}
                    </th>
                    <td>
                      <Badge value={v.Status} />
                      {v.Published === 1 && v.Status !== 'Published' && <span className="sub">Published</span>}
                      {v.Staged === 1 && v.Published !== 1 && v.Status !== 'Staged' && <span className="sub">Staged</span>}
                    </td>
                    <td className="wrap">{v.Title ?? '—'}</td>
                    <td>{dateTime(v.Updated)}</td>
                    <td>{v.Updated_By ?? v.Created_By ?? '—'}</td>
                    {can('content.publish') && (
                      <td>
                        {v.IsCurrent !== 1 && (
                          <button type="button" className="secondary" onClick={() => setRollingBack(v)}>
                            Roll back to version {v.Current_ID}
                          </button>
                        )}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </TableWrap>
          {versions.length > 1 && <Compare key={versions.map((v) => v.Current_ID).join(',')} table={table} id={id} versions={versions} />}
        </>
      )}
      <ConfirmDialog
        open={rollingBack !== null}
        title={`Roll back to version ${rollingBack?.Current_ID ?? ''}?`}
        confirmLabel="Yes, roll back"
        busy={rollback.isPending}
        error={rollback.error}
        onConfirm={() => rollingBack && rollback.mutate(rollingBack)}
        onClose={() => setRollingBack(null)}
      >
        <p>That version becomes the current one again (Rolled Back); publish it for readers to see it.</p>
      </ConfirmDialog>
    </section>
  );
}

function Compare({ table, id, versions }: { table: string; id: number; versions: Version[] }) {
  const ids = versions.map((v) => String(v.Current_ID));
  const [from, setFrom] = useState(ids[ids.length - 2]);
  const [to, setTo] = useState(ids[ids.length - 1]);
  const [asked, setAsked] = useState<{ from: number; to: number } | null>(null);
  const diff = useQuery({
    queryKey: ['contentDiff', table, id, asked],
    enabled: asked !== null,
    queryFn: () => call(api.POST('/content/diff', { body: { table, masterId: id, fromCurrentId: asked!.from, toCurrentId: asked!.to } })),
  });
  const options = versions.map((v) => ({
    value: String(v.Current_ID),
    label: `Version ${v.Current_ID} (${v.Status}, ${dateTime(v.Updated)})`,
  }));
  const changes = diff.data?.data.changes ?? [];
  return (
    <section aria-labelledby="compare-title">
      <h3 id="compare-title">Compare two versions</h3>
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          setAsked({ from: Number(from), to: Number(to) });
        }}
      >
        <SelectField
          label="Older version"
          field="fromCurrentId"
          error={diff.error}
          value={from}
          onChange={(e) => setFrom(e.target.value)}
          options={options}
        />
        <SelectField
          label="Newer version"
          field="toCurrentId"
          error={diff.error}
          value={to}
          onChange={(e) => setTo(e.target.value)}
          options={options}
        />
        <button type="submit">Compare versions</button>
      </form>
      <ErrorMessage error={diff.error} shownFields={['fromCurrentId', 'toCurrentId']} />
      {asked && !diff.isPending && diff.data && (
        <>
          <Status>
            {changes.length === 0
              ? `No field differs between versions ${asked.from} and ${asked.to}.`
              : `${changes.length} field${changes.length === 1 ? '' : 's'} changed from version ${asked.from} to ${asked.to}.`}
          </Status>
          {changes.length > 0 && (
            <TableWrap label="Changed fields">
              <table className="list">
                <thead>
                  <tr>
                    <th scope="col">Field</th>
                    <th scope="col">Version {asked.from}</th>
                    <th scope="col">Version {asked.to}</th>
                  </tr>
                </thead>
                <tbody>
                  {changes.map((c) => (
                    <tr key={c.field}>
                      <th scope="row">{c.field}</th>
                      <td className="wrap diff-removed">
                        <del>{str(c.from) || '∅'}</del>
                      </td>
                      <td className="wrap diff-added">
                        <ins>{str(c.to) || '∅'}</ins>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </>
      )}
    </section>
  );
}
