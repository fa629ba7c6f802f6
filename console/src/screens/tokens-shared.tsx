import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call, type Schemas } from '../api';
import { MutationDialog } from '../components/dialog';
import { Badge, TableWrap, TextField, useCan } from '../components/ui';
import { dateTime } from '../format';
import { useInvalidate } from '../hooks';
import { Link } from '../router';

export type Token = Schemas['ListedTokenDto'];

/** A token's value shortened for a table (the whole value is a credential of its owner). */
function shortValue(value: string): string {
  return value.length > 12 ? `${value.slice(0, 8)}…${value.slice(-4)}` : value;
}

/**
 * Access tokens as a table, with extend and expire for staff holding tokens.manage. `onDone` reports the
 * outcome; the caller's queries named by `invalidate` are fetched again after a change.
 */
export function TokenTable({
  tokens,
  label,
  invalidate,
  onDone,
}: {
  tokens: Token[];
  label: string;
  invalidate: unknown[][];
  onDone: (message: string) => void;
}) {
  const can = useCan();
  const manage = can('tokens.manage');
  const [extending, setExtending] = useState<Token | null>(null);
  const [expiring, setExpiring] = useState<Token | null>(null);
  return (
    <>
      <TableWrap label={label}>
        <table className="list stack">
          <thead>
            <tr>
              <th scope="col">Token</th>
              <th scope="col">Status</th>
              <th scope="col">Product</th>
              <th scope="col">Order</th>
              <th scope="col">Owner</th>
              <th scope="col" className="num">
                Activations
              </th>
              <th scope="col">Expires</th>
              {manage && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {tokens.map((t) => (
              <tr key={t.id}>
                <th scope="row">
                  <span className="mono" title={t.token_value}>
                    {shortValue(t.token_value)}
                  </span>
                  <span className="sub">ID {t.id}</span>
                </th>
                <td data-label="Status">
                  <Badge value={t.status} />
                  {t.gift && <span className="sub">Gift</span>}
                </td>
                <td data-label="Product">{t.productID ?? t.product_id}</td>
                <td data-label="Order">{t.order_id}</td>
                <td data-label="Owner">{t.customer_id ? <Link to={`/customers/${t.customer_id}`}>Customer {t.customer_id}</Link> : '—'}</td>
                <td data-label="Activations" className="num">
                  {t.activations} / {t.maximum_activations}
                </td>
                <td data-label="Expires">{t.expiry_date ? dateTime(t.expiry_date) : 'Never'}</td>
                {manage && (
                  <td data-label="Actions">
                    <div className="actions tight">
                      <button type="button" className="secondary" onClick={() => setExtending(t)} aria-label={`Extend token ${t.id}`}>
                        Extend
                      </button>
                      {t.status !== 'expired' && (
                        <button type="button" className="danger" onClick={() => setExpiring(t)} aria-label={`Expire token ${t.id}`}>
                          Expire
                        </button>
                      )}
                    </div>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </TableWrap>
      {extending && (
        <ExtendDialog key={extending.id} token={extending} invalidate={invalidate} onDone={onDone} onClose={() => setExtending(null)} />
      )}
      {expiring && (
        <ExpireDialog key={expiring.id} token={expiring} invalidate={invalidate} onDone={onDone} onClose={() => setExpiring(null)} />
      )}
    </>
  );
}

function ExtendDialog({
  token,
  invalidate,
  onDone,
  onClose,
}: {
  token: Token;
  invalidate: unknown[][];
  onDone: (m: string) => void;
  onClose: () => void;
}) {
  const invalidateAll = useInvalidate();
  const [days, setDays] = useState('30');
  const extend = useMutation({
    mutationFn: () => call(api.POST('/ecommerce/extendToken', { body: { tokenId: token.id, days: Number(days) } })),
    onSuccess: async (answer) => {
      onDone(`Token ${token.id} now expires ${dateTime(answer.data.newExpiry)}.`);
      onClose();
      await invalidateAll(...invalidate);
    },
  });
  return (
    <MutationDialog mutation={extend} title={`Extend token ${token.id}`} confirmLabel="Extend token" onClose={onClose}>
      <p>Expires now: {token.expiry_date ? dateTime(token.expiry_date) : 'never'}. The days are added to the later of now and that date.</p>
      <TextField
        label="Days to add"
        field="days"
        error={extend.error}
        type="number"
        min={1}
        max={36500}
        value={days}
        onChange={(e) => setDays(e.target.value)}
        required
      />
    </MutationDialog>
  );
}

function ExpireDialog({
  token,
  invalidate,
  onDone,
  onClose,
}: {
  token: Token;
  invalidate: unknown[][];
  onDone: (m: string) => void;
  onClose: () => void;
}) {
  const invalidateAll = useInvalidate();
  const expire = useMutation({
    mutationFn: () => call(api.POST('/ecommerce/expireToken', { body: { tokenId: token.id } })),
    onSuccess: async () => {
      onDone(`Token ${token.id} expired.`);
      onClose();
      await invalidateAll(...invalidate);
    },
  });
  return (
    <MutationDialog mutation={expire} danger title={`Expire token ${token.id}?`} confirmLabel="Yes, expire token" onClose={onClose}>
      <p>Its owner loses access at once. Extending it later makes it active again.</p>
    </MutationDialog>
  );
}
