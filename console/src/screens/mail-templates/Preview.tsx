import { keepPreviousData, useMutation, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api';
import { ApiFailure } from '../../api-failure';
import { ErrorMessage, Status, TextArea, TextField } from '../../components/ui';
import { MailFrame } from '../../components/MailFrame';
import { useDebounced } from '../../hooks';

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
export function Preview({ event, subject, content }: { event: string; subject: string; content: string }) {
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

export function TestSend({ event, dirty }: { event: string; dirty: boolean }) {
  const [email, setEmail] = useState('');
  const [done, setDone] = useState('');
  const send = useMutation({
    mutationFn: () => call(api.POST('/message/templates/testSend', { body: { event, email: email.trim() } })),
    onSuccess: ({ data }) => {
      const missing = data.missingFields.length ? `. Missing fields: ${data.missingFields.join(', ')}` : '';
      setDone(`Test mail queued (send log #${data.logId}): ${data.subject}${missing}.`);
    },
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
