import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { api, call } from '../../api';
import { ConfirmDialog } from '../../components/dialog';
import { TextField } from '../../components/ui';
import { type Order, type Done, useOrderChanged } from './shared';

export function CancelOrder({ order, onDone }: { order: Order; onDone: Done }) {
  const changed = useOrderChanged(order);
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const cancel = useMutation({
    mutationFn: () =>
      call(api.POST('/ecommerce/cancelOrder', { body: { _orderID: order._id, ...(reason.trim() ? { reason: reason.trim() } : {}) } })),
    onSuccess: async (answer) => {
      setOpen(false);
      onDone(`Order cancelled: ${answer.data.cancelledItems} item${answer.data.cancelledItems === 1 ? '' : 's'} cancelled.`);
      await changed();
    },
  });
  return (
    <section className="panel danger-zone" aria-labelledby="cancel-title">
      <h2 id="cancel-title">Cancel</h2>
      <p>
        {order.status === 'Paid'
          ? 'The rest of the payment is refunded to the card first, the items become Cancelled and their access tokens expire.'
          : 'The items become Cancelled and their access tokens expire.'}
      </p>
      <button
        type="button"
        className="danger"
        onClick={() => {
          cancel.reset();
          onDone('');
          setOpen(true);
        }}
      >
        Cancel order
      </button>
      <ConfirmDialog
        open={open}
        title="Cancel this order?"
        confirmLabel="Yes, cancel order"
        danger
        busy={cancel.isPending}
        error={cancel.error}
        onConfirm={() => cancel.mutate()}
        onClose={() => setOpen(false)}
      >
        <p>Order {order.orderNumber || order.orderID} will be cancelled. This cannot be undone.</p>
        {order.status === 'Paid' && (
          <TextField label="Refund reason" field="reason" error={cancel.error} value={reason} onChange={(e) => setReason(e.target.value)} />
        )}
      </ConfirmDialog>
    </section>
  );
}
