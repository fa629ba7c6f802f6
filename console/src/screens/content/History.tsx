import { useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api';
import { ConfirmDialog } from '../../components/dialog';
import { Badge, ErrorMessage, Loading, SelectField, Status, TableWrap, useCan } from '../../components/ui';
import { dateTime } from '../../format';
import { type Version, str, useRecordChanged, useHistory } from './shared';

export function History({ table, id, onDone }: { table: string; id: number; onDone: (m: string) => void }) {
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
