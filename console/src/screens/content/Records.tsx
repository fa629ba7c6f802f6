import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, call } from '../../api';
import { ApiFailure } from '../../api-failure';
import { ErrorMessage, Loading, Status, useTitle } from '../../components/ui';
import { Link, navigate } from '../../router';
import { type Row, useTables, str } from './shared';
import { RecordFields, collect } from './fields';
import { Editor } from './Editor';
import { Lifecycle } from './Lifecycle';
import { History } from './History';

export function NewRecord({ table }: { table: string }) {
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

export function RecordPage({ table, id }: { table: string; id: number }) {
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
