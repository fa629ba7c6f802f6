import { useMutation } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api, call } from '../../api';
import { ApiFailure } from '../../api-failure';
import { ConfirmDialog } from '../../components/dialog';
import { ErrorMessage, TextArea, TextField } from '../../components/ui';
import { money, toMajor, toMinor } from '../../format';
import { type Order, type Done, useOrderChanged } from './shared';

function idempotencyKey(): string {
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return `console-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export function RefundForm({ order, refundable, onDone }: { order: Order; refundable: number; onDone: Done }) {
  const changed = useOrderChanged(order);
  const [amount, setAmount] = useState(() => toMajor(refundable, order.currency));
  const [reason, setReason] = useState('');
  const [confirming, setConfirming] = useState<{ cents: number; key: string } | null>(null);
  const [localError, setLocalError] = useState<string | null>(null);
  const refund = useMutation({
    mutationFn: (input: { cents: number; key: string }) =>
      call(
        api.POST('/ecommerce/refundOrder', {
          params: { header: { 'idempotency-key': input.key } },
          body: { _orderID: order._id, amount: input.cents, ...(reason.trim() ? { reason: reason.trim() } : {}) },
        }),
      ),
    onSuccess: async (answer) => {
      setConfirming(null);
      onDone(`Refunded ${money(answer.data.amount, answer.data.currency)}. Payment status: ${answer.data.paymentStatus}.`);
      setReason('');
      await changed();
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    onDone('');
    refund.reset();
    const cents = toMinor(amount, order.currency);
    if (cents === null || cents < 1) return setLocalError('Enter an amount, such as 12.50.');
    if (cents > refundable) return setLocalError(`At most ${money(refundable, order.currency)} is left to refund.`);
    setLocalError(null);
    setConfirming({ cents, key: idempotencyKey() });
  };

  const amountError = localError ? new ApiFailure(400, localError, [{ field: 'amount', message: localError }]) : refund.error;
  return (
    <section className="panel" aria-labelledby="refund-title">
      <h2 id="refund-title">Refund</h2>
      <p>
        Left to refund: <strong>{money(refundable, order.currency)}</strong> of {money(order.total, order.currency)}
      </p>
      <form onSubmit={submit}>
        <TextField
          label={`Amount (${order.currency.toUpperCase()})`}
          field="amount"
          error={amountError}
          value={amount}
          onChange={(e) => setAmount(e.target.value)}
          inputMode="decimal"
          required
        />
        <TextArea
          label="Reason"
          field="reason"
          error={refund.error}
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          rows={2}
          hint="Shown in the refund mail to the customer."
        />
        {!confirming && <ErrorMessage error={refund.error} shownFields={['amount', 'reason']} />}
        <button type="submit">Refund</button>
      </form>
      <ConfirmDialog
        open={confirming !== null}
        title="Refund this order?"
        confirmLabel="Confirm refund"
        busy={refund.isPending}
        error={refund.error}
        onConfirm={() => confirming && refund.mutate(confirming)}
        onClose={() => setConfirming(null)}
      >
        {confirming && (
          <p>
            {money(confirming.cents, order.currency)} of order {order.orderNumber || order.orderID} goes back to the customer's card
            {reason.trim() ? ` (reason: ${reason.trim()})` : ''}. {money(refundable - confirming.cents, order.currency)} will be left to
            refund.
          </p>
        )}
      </ConfirmDialog>
    </section>
  );
}
