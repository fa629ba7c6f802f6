import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, call, type Schemas } from '../api';
import { ApiFailure } from '../api-failure';
import { ConfirmDialog } from '../components/dialog';
import { Badge, Checkbox, ErrorMessage, Loading, Status, TableWrap, TextArea, TextField, useCan, useTitle } from '../components/ui';
import { MailFrame } from '../components/MailFrame';
import { dateTime } from '../format';
import { useDebounced } from '../hooks';
import { Link, navigate } from '../router';

type Template = Schemas['TemplateItem'];

export default function MailTemplates({ params }: { params: Record<string, string> }) {
  return params.event ? <TemplateEditor event={params.event} /> : <TemplateList />;
}

function TemplateList() {
  useTitle('Mail templates');
  const can = useCan();
  const templates = useQuery({ queryKey: ['templates'], queryFn: () => call(api.POST('/message/templates/list', {})) });
  const rows = templates.data?.data ?? [];
  return (
    <section aria-labelledby="templates-title">
      <h1 id="templates-title">Mail templates</h1>
      <p>
        The mails this shop sends, by event. A template for <code>order_confirmation</code>, <code>order_admin</code> or{' '}
        <code>order_refund</code> replaces the service&apos;s own order mail.
      </p>
      <ErrorMessage error={templates.error} />
      {templates.isPending ? (
        <Loading label="Loading templates…" />
      ) : (
        <>
          <Status>{rows.length === 0 ? 'No templates yet.' : `${rows.length} template${rows.length === 1 ? '' : 's'}.`}</Status>
          {rows.length > 0 && (
            <TableWrap label="Templates">
              <table className="list">
                <thead>
                  <tr>
                    <th scope="col">Event</th>
                    <th scope="col">Subject</th>
                    <th scope="col">Enabled</th>
                    <th scope="col" className="num">
                      Version
                    </th>
                    <th scope="col">Updated</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((t) => (
                    <tr key={t.event}>
                      <th scope="row">
                        <Link to={`/mail/templates/${encodeURIComponent(t.event)}`}>{t.event}</Link>
                        {t.reserved && <span className="sub">Order mail</span>}
                      </th>
                      <td className="wrap">{t.subject}</td>
                      <td>
                        <Badge value={t.enabled ? 'Active' : 'Disabled'} />
                      </td>
                      <td className="num">{t.version}</td>
                      <td>{dateTime(t.updated)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableWrap>
          )}
        </>
      )}
      {can('mail.templates.edit') && <NewTemplate />}
    </section>
  );
}

function NewTemplate() {
  const client = useQueryClient();
  const [event, setEvent] = useState('');
  const [subject, setSubject] = useState('');
  const [content, setContent] = useState('');
  const create = useMutation({
    mutationFn: () => call(api.POST('/message/templates/create', { body: { event: event.trim(), subject, content } })),
    onSuccess: async (answer) => {
      await client.invalidateQueries({ queryKey: ['templates'] });
      navigate(`/mail/templates/${encodeURIComponent(answer.data.event)}`);
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    create.mutate();
  };
  return (
    <section className="panel wide" aria-labelledby="new-template-title">
      <h2 id="new-template-title">New template</h2>
      <form onSubmit={submit}>
        <TextField
          label="Event"
          field="event"
          error={create.error}
          value={event}
          onChange={(e) => setEvent(e.target.value)}
          required
          hint="A letter, then letters, digits, _, . or - (welcome, order_confirmation…)"
        />
        <TextField
          label="Subject"
          field="subject"
          error={create.error}
          value={subject}
          onChange={(e) => setSubject(e.target.value)}
          required
        />
        <TextArea
          label="Content (HTML)"
          field="content"
          error={create.error}
          value={content}
          onChange={(e) => setContent(e.target.value)}
          rows={6}
          required
          hint="Merge fields in brackets: [firstname]"
        />
        <ErrorMessage error={create.error} shownFields={['event', 'subject', 'content']} />
        <button type="submit" disabled={create.isPending}>
          Create template
        </button>
      </form>
    </section>
  );
}

interface Draft {
  subject: string;
  content: string;
  enabled: boolean;
  from: string;
  bcc: string;
}

function draftOf(t: Template): Draft {
  return { subject: t.subject, content: t.content, enabled: t.enabled, from: t.from ?? '', bcc: t.bcc ?? '' };
}

function TemplateEditor({ event }: { event: string }) {
  useTitle(`Template ${event}`);
  const template = useQuery({
    queryKey: ['template', event],
    queryFn: () => call(api.POST('/message/templates/get', { body: { event } })),
  });
  const data = template.data?.data;
  const [notice, setNotice] = useState('');
  return (
    <section aria-labelledby="template-title">
      <p className="crumbs">
        <Link to="/mail/templates">Mail templates</Link> / {event}
      </p>
      <h1 id="template-title">Template {event}</h1>
      {template.isPending ? (
        <Loading label="Loading the template…" />
      ) : data ? (
        <Editor key={`${data.event}:${data.version}:${data.updated}`} template={data} notice={notice} onNotice={setNotice} />
      ) : (
        <ErrorMessage error={template.error} />
      )}
      <Versions event={event} onNotice={setNotice} />
    </section>
  );
}

function Editor({ template, notice, onNotice }: { template: Template; notice: string; onNotice: (notice: string) => void }) {
  const can = useCan();
  const editable = can('mail.templates.edit');
  const client = useQueryClient();
  const [draft, setDraft] = useState<Draft>(() => draftOf(template));
  const [deleting, setDeleting] = useState(false);
  const dirty = JSON.stringify(draft) !== JSON.stringify(draftOf(template));

  const save = useMutation({
    mutationFn: () =>
      call(
        api.POST('/message/templates/update', {
          body: {
            event: template.event,
            subject: draft.subject,
            content: draft.content,
            enabled: draft.enabled,
            from: draft.from,
            bcc: draft.bcc,
          },
        }),
      ),
    onSuccess: async (answer) => {
      onNotice(`Saved as version ${answer.data.version}.`);
      client.setQueryData(['template', template.event], answer);
      await Promise.all([
        client.invalidateQueries({ queryKey: ['templates'] }),
        client.invalidateQueries({ queryKey: ['templateVersions', template.event] }),
      ]);
    },
  });
  const remove = useMutation({
    mutationFn: () => call(api.POST('/message/templates/delete', { body: { event: template.event } })),
    onSuccess: async () => {
      setDeleting(false);
      await client.invalidateQueries({ queryKey: ['templates'] });
      client.removeQueries({ queryKey: ['template', template.event] });
      navigate('/mail/templates');
    },
  });

  const set = (key: keyof Draft) => (e: { target: { value: string } }) => setDraft({ ...draft, [key]: e.target.value });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onNotice('');
    save.mutate();
  };

  return (
    <>
      <div className="split">
        <section className="panel wide" aria-labelledby="editor-title">
          <h2 id="editor-title">{editable ? 'Edit' : 'Template'}</h2>
          {template.mergeFields.length > 0 && <p className="hint">Merge fields: {template.mergeFields.map((f) => `[${f}]`).join(' ')}</p>}
          <form onSubmit={submit}>
            <TextField
              label="Subject"
              field="subject"
              error={save.error}
              value={draft.subject}
              onChange={set('subject')}
              readOnly={!editable}
              required
            />
            <TextArea
              label="Content (HTML)"
              field="content"
              error={save.error}
              value={draft.content}
              onChange={set('content')}
              readOnly={!editable}
              rows={14}
              className="mono-area"
              required
            />
            <TextField
              label="From"
              field="from"
              error={save.error}
              value={draft.from}
              onChange={set('from')}
              readOnly={!editable}
              hint="Blank: the shop's sender address"
            />
            <TextField
              label="BCC"
              field="bcc"
              error={save.error}
              value={draft.bcc}
              onChange={set('bcc')}
              readOnly={!editable}
              hint="Addresses separated by , or ;"
            />
            <Checkbox
              label="Enabled"
              checked={draft.enabled}
              onChange={(e) => setDraft({ ...draft, enabled: e.target.checked })}
              disabled={!editable}
            />
            <ErrorMessage error={save.error} shownFields={['subject', 'content', 'from', 'bcc']} />
            {editable && (
              <div className="actions">
                <button type="submit" disabled={save.isPending || !dirty}>
                  Save template
                </button>
                <button type="button" className="secondary" disabled={!dirty} onClick={() => setDraft(draftOf(template))}>
                  Discard changes
                </button>
                <button type="button" className="danger" onClick={() => setDeleting(true)}>
                  Delete template
                </button>
              </div>
            )}
            <Status>{save.isPending ? 'Saving…' : dirty ? 'Unsaved changes.' : notice}</Status>
          </form>
        </section>
        <Preview event={template.event} subject={draft.subject} content={draft.content} />
      </div>
      {editable && <TestSend event={template.event} dirty={dirty} />}
      <ConfirmDialog
        open={deleting}
        title={`Delete the template ${template.event}?`}
        confirmLabel="Yes, delete template"
        danger
        busy={remove.isPending}
        error={remove.error}
        onConfirm={() => remove.mutate()}
        onClose={() => setDeleting(false)}
      >
        <p>Its last state stays as a version, which can be restored.</p>
      </ConfirmDialog>
    </>
  );
}

function parseData(text: string): { data?: Record<string, unknown>; error?: string } {
  if (!text.trim()) return {};
  try {
    const value: unknown = JSON.parse(text);
    if (!value || typeof value !== 'object' || Array.isArray(value))
      return { error: 'Preview data must be a JSON object, such as {"firstname": "Cy"}.' };
    return { data: value as Record<string, unknown> };
  } catch {
    return { error: 'Preview data is not valid JSON.' };
  }
}

/** The live preview: the unsaved subject and content, rendered by the service a moment after typing stops. */
function Preview({ event, subject, content }: { event: string; subject: string; content: string }) {
  const [dataText, setDataText] = useState('');
  const parsed = parseData(dataText);
  // Debounced as one string: a new object every render would restart the timer for ever.
  const settled = useDebounced(JSON.stringify({ subject, content, data: parsed.data, bad: !!parsed.error }), 400);
  const input = JSON.parse(settled) as { subject: string; content: string; data?: Record<string, unknown>; bad: boolean };
  const preview = useQuery({
    queryKey: ['preview', event, input.subject, input.content, input.data],
    queryFn: () =>
      call(api.POST('/message/templates/preview', { body: { event, subject: input.subject, content: input.content, data: input.data } })),
    enabled: !input.bad && input.subject !== '' && input.content !== '',
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  });
  const result = preview.data?.data;
  const localError = parsed.error ? new ApiFailure(400, parsed.error, [{ field: 'data', message: parsed.error }]) : undefined;
  return (
    <section className="panel wide" aria-labelledby="preview-title">
      <h2 id="preview-title">Preview</h2>
      <TextArea
        label="Preview data (JSON)"
        field="data"
        error={localError ?? preview.error}
        value={dataText}
        onChange={(e) => setDataText(e.target.value)}
        rows={3}
        placeholder='{"firstname": "Cy"}'
        hint="Blank: sample data"
      />
      <ErrorMessage error={preview.error} shownFields={['data']} />
      <Status>
        {preview.isFetching ? 'Updating the preview…' : result ? `Preview updated${result.sample ? ' with sample data' : ''}.` : ''}
      </Status>
      {result && (
        <>
          <dl className="facts">
            <dt>Subject</dt>
            <dd className="wrap">{result.subject}</dd>
            {result.missingFields.length > 0 && (
              <>
                <dt>Missing fields</dt>
                <dd>{result.missingFields.map((f) => `[${f}]`).join(' ')}</dd>
              </>
            )}
          </dl>
          <h3>HTML</h3>
          <MailFrame title="Mail preview (HTML)" html={result.html} />
          <details>
            <summary>Plain-text part</summary>
            <pre className="block">{result.text}</pre>
          </details>
        </>
      )}
    </section>
  );
}

function TestSend({ event, dirty }: { event: string; dirty: boolean }) {
  const [email, setEmail] = useState('');
  const [done, setDone] = useState('');
  const send = useMutation({
    mutationFn: () => call(api.POST('/message/templates/testSend', { body: { event, email: email.trim() } })),
    onSuccess: (answer) =>
      setDone(
        `Test mail queued (send log #${answer.data.logId}): ${answer.data.subject}${answer.data.missingFields.length ? `. Missing fields: ${answer.data.missingFields.join(', ')}` : ''}.`,
      ),
  });
  return (
    <section className="panel" aria-labelledby="test-title">
      <h2 id="test-title">Test send</h2>
      <p className="hint">Sends the saved template{dirty ? ' (not your unsaved changes)' : ''} with sample data to one address.</p>
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          setDone('');
          send.mutate();
        }}
      >
        <TextField
          label="Send a test to"
          field="email"
          error={send.error}
          type="email"
          value={email}
          onChange={(e) => setEmail(e.target.value)}
          required
          autoComplete="email"
        />
        <button type="submit" disabled={send.isPending}>
          Send test
        </button>
      </form>
      <ErrorMessage error={send.error} shownFields={['email']} />
      <Status>{done}</Status>
    </section>
  );
}

function Versions({ event, onNotice }: { event: string; onNotice: (notice: string) => void }) {
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
