import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, call, type Schemas } from '../api';
import { Checkbox, ErrorMessage, Loading, Status, TextField, useCan, useDraft, useTitle } from '../components/ui';

type Settings = Schemas['TenantSettingsDto'];

/** Plain settings, shown with their value and changed in place. */
const PLAIN: { key: string; label: string; hint?: string; type?: string }[] = [
  { key: 'name', label: 'Shop name' },
  { key: 'domain', label: 'Domain', hint: 'The shop’s host name, such as shop.example.com' },
  { key: 'currency', label: 'Currency', hint: 'ISO 4217 code, such as aud or eur' },
  { key: 'email_from', label: 'Sender address', hint: 'a@b or Name <a@b>', type: 'text' },
];
const BRANDING: { key: keyof Settings['branding']; label: string }[] = [
  { key: 'logo', label: 'Logo URL' },
  { key: 'splash_logo', label: 'Splash logo URL' },
  { key: 'background', label: 'Background' },
  { key: 'colour1', label: 'Colour 1' },
  { key: 'colour2', label: 'Colour 2' },
];
const PUBLIC_KEYS: { key: 'payment_test_public_key' | 'payment_live_public_key'; label: string }[] = [
  { key: 'payment_test_public_key', label: 'Test publishable key' },
  { key: 'payment_live_public_key', label: 'Live publishable key' },
];
/** Write-only: the service answers them masked (prefix and last 4 characters); a new value replaces them. */
const SECRETS: { key: 'payment_test_private_key' | 'payment_live_private_key' | 'payment_webhook_secret'; label: string; hint: string }[] =
  [
    { key: 'payment_test_private_key', label: 'Test secret key', hint: 'sk_test_… or rk_test_…' },
    { key: 'payment_live_private_key', label: 'Live secret key', hint: 'sk_live_… or rk_live_…' },
    { key: 'payment_webhook_secret', label: 'Webhook signing secret', hint: 'whsec_…' },
  ];

type Values = Record<string, string>;

function valuesOf(s: Settings): Values {
  const values: Values = {};
  for (const { key } of PLAIN) values[key] = String((s as unknown as Record<string, unknown>)[key] ?? '');
  for (const { key } of BRANDING) values[key] = s.branding[key] ?? '';
  for (const { key } of PUBLIC_KEYS) values[key] = s[key] ?? '';
  return values;
}

export default function SettingsScreen() {
  useTitle('Settings');
  const settings = useQuery({ queryKey: ['settings'], queryFn: () => call(api.POST('/staff/settings', { body: {} })) });
  const data = settings.data?.data;
  // Kept here: saving makes the form again from the saved settings.
  const [notice, setNotice] = useState('');
  return (
    <section aria-labelledby="settings-title">
      <h1 id="settings-title">Settings</h1>
      <ErrorMessage error={settings.error} />
      {settings.isPending ? (
        <Loading label="Loading settings…" />
      ) : (
        data && <SettingsForm key={JSON.stringify(data)} settings={data} notice={notice} onNotice={setNotice} />
      )}
    </section>
  );
}

function SettingsForm({ settings, notice, onNotice }: { settings: Settings; notice: string; onNotice: (notice: string) => void }) {
  const can = useCan();
  const editable = can('settings.manage');
  const client = useQueryClient();
  const initial = valuesOf(settings);
  const { draft: values, bind: set } = useDraft<Values>(initial);
  const [testMode, setTestMode] = useState(settings.payment_test_mode);
  const [secrets, setSecrets] = useState<Values>({});
  const [clear, setClear] = useState<Record<string, boolean>>({});

  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) if (value !== initial[key]) changes[key] = value.trim() === '' ? null : value.trim();
  if (testMode !== settings.payment_test_mode) changes.payment_test_mode = testMode;
  for (const { key } of SECRETS) {
    if (clear[key]) changes[key] = null;
    else if (secrets[key]?.trim()) changes[key] = secrets[key].trim();
  }
  const count = Object.keys(changes).length;

  const save = useMutation({
    mutationFn: () => call(api.POST('/staff/settings/update', { body: { changes } })),
    onSuccess: (answer) => {
      const changed = answer.data.changed ?? [];
      onNotice(changed.length ? `Saved: ${changed.join(', ')}.` : 'Nothing changed.');
      client.setQueryData(['settings'], answer);
    },
  });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    onNotice('');
    save.mutate();
  };
  const field = (key: string) => `changes.${key}`;
  /** A setting shown with its value and changed in place. */
  const text = ({ key, label, hint }: { key: string; label: string; hint?: string }, input?: { autoComplete: string }) => (
    <TextField
      key={key}
      label={label}
      field={field(key)}
      error={save.error}
      value={values[key]}
      onChange={set(key)}
      readOnly={!editable}
      hint={hint}
      {...input}
    />
  );

  return (
    <form onSubmit={submit} className="settings">
      <section className="panel wide" aria-labelledby="shop-title">
        <h2 id="shop-title">Shop</h2>
        <p className="hint">App ID {settings.appID}</p>
        {PLAIN.map((setting) => text(setting))}
      </section>
      <section className="panel wide" aria-labelledby="branding-title">
        <h2 id="branding-title">Branding</h2>
        {BRANDING.map((setting) => text(setting))}
      </section>
      <section className="panel wide" aria-labelledby="payments-title">
        <h2 id="payments-title">Payments</h2>
        <Checkbox
          label="Test mode (payments use the test keys)"
          checked={testMode}
          onChange={(e) => setTestMode(e.target.checked)}
          disabled={!editable}
        />
        {PUBLIC_KEYS.map((setting) => text(setting, { autoComplete: 'off' }))}
        {SECRETS.map(({ key, label, hint }) => {
          const current = settings[key];
          return (
            <div key={key} className="secret">
              {editable ? (
                <>
                  <TextField
                    label={`${label} (new value)`}
                    field={field(key)}
                    error={save.error}
                    type="password"
                    value={secrets[key] ?? ''}
                    onChange={(e) => setSecrets({ ...secrets, [key]: e.target.value })}
                    autoComplete="new-password"
                    disabled={clear[key]}
                    hint={`Current: ${current ?? 'not set'}. Write-only: leave blank to keep it. ${hint}`}
                  />
                  {current && (
                    <Checkbox
                      label={`Clear the ${label.toLowerCase()}`}
                      checked={!!clear[key]}
                      onChange={(e) => setClear({ ...clear, [key]: e.target.checked })}
                    />
                  )}
                </>
              ) : (
                <dl className="facts">
                  <dt>{label}</dt>
                  <dd className="mono">{current ?? 'not set'}</dd>
                </dl>
              )}
            </div>
          );
        })}
      </section>
      <ErrorMessage
        error={save.error}
        shownFields={Object.keys(changes)
          .map(field)
          .concat(SECRETS.map(({ key }) => field(key)))}
      />
      <Status>{save.isPending ? 'Saving…' : count > 0 ? `${count} unsaved change${count === 1 ? '' : 's'}.` : notice}</Status>
      {editable && (
        <div className="actions">
          <button type="submit" disabled={save.isPending || count === 0}>
            Save settings
          </button>
        </div>
      )}
    </form>
  );
}
