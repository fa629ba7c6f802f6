import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api';
import { ConfirmDialog } from '../../components/dialog';
import { Badge, ErrorMessage, TextField, useCan } from '../../components/ui';
import { dateTime } from '../../format';
import { navigate } from '../../router';
import { type Row, str, useHistory, useRecordChanged } from './shared';

function localDateTime(text: string): string | undefined {
  if (!text) return undefined;
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

export function Lifecycle({ table, id, row, onDone }: { table: string; id: number; row: Row; onDone: (m: string) => void }) {
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
