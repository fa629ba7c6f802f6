import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, call } from '../../api';
import { ApiFailure } from '../../api-failure';
import { Badge, ErrorMessage, Status, useCan } from '../../components/ui';
import { dateTime } from '../../format';
import { type Row, type Table, str, useRecordChanged } from './shared';
import { toInput, RecordFields, collect } from './fields';

export function Editor({ table, id, row, onDone }: { table: Table; id: number; row: Row; onDone: (m: string) => void }) {
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
