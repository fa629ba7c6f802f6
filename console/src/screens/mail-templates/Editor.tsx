import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, call, type Schemas } from '../../api';
import { ConfirmDialog } from '../../components/dialog';
import { Checkbox, ErrorMessage, Loading, Status, TextArea, TextField, useCan, useTitle } from '../../components/ui';
import { Link, navigate } from '../../router';
import { Preview, TestSend } from './Preview';
import { Versions } from './Versions';

type Template = Schemas['TemplateItem'];

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

export function TemplateEditor({ event }: { event: string }) {
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
