import { ApiProperty } from '@nestjs/swagger';
import { DateProperty, OPEN_OBJECT, SuccessEnvelope } from '../../common/api-responses';
import { IdField, TextField } from '../../common/dto-fields';
import { EncryptedOrderIdField } from '../cart/cart.dto';
import { MAX_NOTE_LENGTH } from '../entities';
import { TIMELINE_EVENT_TYPES, TimelineEventType } from './order-timeline.service';

/* POST /ecommerce/orderTimeline and /ecommerce/addOrderNote (README "Order timeline and notes"). */

const APP_ID_DOC = { description: 'App id; the site-id header is preferred. Read from the body only outside production.' };

export class OrderTimelineRequest {
  @IdField('appID', { doc: APP_ID_DOC })
  appID?: number;

  @EncryptedOrderIdField('_orderID', { required: true })
  _orderID: number;
}

export class AddOrderNoteRequest {
  @IdField('appID', { doc: APP_ID_DOC })
  appID?: number;

  @EncryptedOrderIdField('_orderID', { required: true })
  _orderID: number;

  @TextField('text', MAX_NOTE_LENGTH, {
    required: true,
    doc: { description: `The note, 1..${MAX_NOTE_LENGTH} characters (not only blanks)`, minLength: 1, maxLength: MAX_NOTE_LENGTH },
  })
  text: string;
}

export class TimelineEventDto {
  @DateProperty({ description: 'When it happened' }) at: Date;
  @ApiProperty({
    enum: TIMELINE_EVENT_TYPES,
    description:
      'created (core_orders.created), item_added / item_changed (cart items), checkout (a payment intent asked), payment_event (a provider event received), ' +
      'completed (order_date), refund, cancelled (its audit row), staff_action (another audited action on the order), mail_written / mail_sent, note',
  })
  type: TimelineEventType;
  @ApiProperty({ description: 'One line for people' }) summary: string;
  @ApiProperty({ ...OPEN_OBJECT, description: "The event's fields (ids, amounts, statuses, the note's text…)" })
  details: Record<string, unknown>;
}

export class OrderTimelineDto {
  @ApiProperty({ description: 'Encrypted order id' }) _id: string;
  @ApiProperty({ type: 'integer' }) orderID: number;
  @ApiProperty({ type: [TimelineEventDto], description: 'Oldest first' }) events: TimelineEventDto[];
}

export class OrderTimelineAnswer extends SuccessEnvelope {
  @ApiProperty({ type: OrderTimelineDto }) data: OrderTimelineDto;
}

export class AddedNoteDto {
  @ApiProperty({ type: 'integer' }) noteID: number;
  @ApiProperty({ type: 'integer', description: 'The staff member who wrote it (core_users id)' }) author: number;
  @ApiProperty() text: string;
  @DateProperty() created: Date;
}

export class AddOrderNoteAnswer extends SuccessEnvelope {
  @ApiProperty({ type: AddedNoteDto }) data: AddedNoteDto;
}
