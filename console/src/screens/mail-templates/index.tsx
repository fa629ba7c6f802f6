import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, call } from '../../api';
import { Badge, ErrorMessage, Loading, Status, TableWrap, TextArea, TextField, useCan, useTitle } from '../../components/ui';
import { dateTime } from '../../format';
import { Link, navigate } from '../../router';
import { TemplateEditor } from './Editor';

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
