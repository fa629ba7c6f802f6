import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api';
import { ConfirmDialog } from '../../components/dialog';
import { ErrorMessage, Loading, TableWrap, useCan } from '../../components/ui';
import { dateTime } from '../../format';

export function Versions({ event, onNotice }: { event: string; onNotice: (notice: string) => void }) {
  const can = useCan();
  const client = useQueryClient();
  const versions = useQuery({
    queryKey: ['templateVersions', event],
    queryFn: () => call(api.POST('/message/templates/versions', { body: { event } })),
  });
  const [restoring, setRestoring] = useState<number | null>(null);
  const [shown, setShown] = useState<number | null>(null);
  const restore = useMutation({
    mutationFn: (version: number) => call(api.POST('/message/templates/restore', { body: { event, version } })),
    onSuccess: async (answer, version) => {
      setRestoring(null);
      onNotice(`Version ${version} restored as version ${answer.data.version}.`);
      client.setQueryData(['template', event], answer);
      await Promise.all([
        client.invalidateQueries({ queryKey: ['templateVersions', event] }),
        client.invalidateQueries({ queryKey: ['templates'] }),
      ]);
    },
  });
  const rows = versions.data?.data ?? [];
  const current = rows[0]?.action === 'delete' ? null : rows[0]?.version;
  return (
    <section className="panel" aria-labelledby="versions-title">
      <h2 id="versions-title">Versions</h2>
      <ErrorMessage error={versions.error} />
      {versions.isPending ? (
        <Loading label="Loading versions…" />
      ) : rows.length === 0 ? (
        <p>No versions kept yet.</p>
      ) : (
        <TableWrap label="Template versions">
          <table className="list">
            <thead>
              <tr>
                <th scope="col">Version</th>
                <th scope="col">Change</th>
                <th scope="col">Subject</th>
                <th scope="col">By</th>
                <th scope="col">When</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((v) => (
                <tr key={v.version}>
                  <th scope="row">{v.version}</th>
                  <td>{v.action}</td>
                  <td className="wrap">{v.subject}</td>
                  <td>{v.userId ?? '—'}</td>
                  <td>{dateTime(v.created)}</td>
                  <td>
                    <div className="actions tight">
                      <button
                        type="button"
                        className="secondary"
                        aria-expanded={shown === v.version}
                        onClick={() => setShown(shown === v.version ? null : v.version)}
                      >
                        {shown === v.version ? `Hide version ${v.version}` : `Show version ${v.version}`}
                      </button>
                      {can('mail.templates.edit') && v.version !== current && (
                        <button type="button" onClick={() => setRestoring(v.version)}>
                          Restore version {v.version}
                        </button>
                      )}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
      {shown !== null && (
        <section aria-label={`Version ${shown}`}>
          <h3>Version {shown}</h3>
          <pre className="block">{rows.find((v) => v.version === shown)?.content}</pre>
        </section>
      )}
      <ConfirmDialog
        open={restoring !== null}
        title={`Restore version ${restoring ?? ''}?`}
        confirmLabel="Yes, restore"
        busy={restore.isPending}
        error={restore.error}
        onConfirm={() => restoring !== null && restore.mutate(restoring)}
        onClose={() => setRestoring(null)}
      >
        <p>Its subject and content become the template again, as a new version. Unsaved changes in the editor are lost.</p>
      </ConfirmDialog>
    </section>
  );
}
