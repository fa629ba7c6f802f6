import { Foundation1764000000000 } from './1764000000000-foundation';
import { Accounts1764000100000 } from './1764000100000-accounts';
import { AuthSmsCodes1764000110000 } from './1764000110000-auth-sms-codes';
import { Messaging1764000200000 } from './1764000200000-messaging';
import { Content1764000300000 } from './1764000300000-content';
import { MailOutboxText1764000400000 } from './1764000400000-mail-outbox-text';
import { Tokens1764000500000 } from './1764000500000-tokens';
import { Orders1764000600000 } from './1764000600000-orders';
import { Identities1764000700000 } from './1764000700000-identities';
import { SiteChanges1764000800000 } from './1764000800000-site-changes';
import { ContentPageIndexes1764000900000 } from './1764000900000-content-page-indexes';
import { DropProductAppIndex1764001000000 } from './1764001000000-drop-product-app-index';
import { PaymentIntegrity1764001100000 } from './1764001100000-payment-integrity';
import { GiftTokens1764001200000 } from './1764001200000-gift-tokens';
import { Refunds1764001300000 } from './1764001300000-refunds';
import { OutboxTextPart1764001400000 } from './1764001400000-outbox-text-part';
import { PaymentInbox1764001500000 } from './1764001500000-payment-inbox';
import { PaymentIntents1764001600000 } from './1764001600000-payment-intents';
import { TokenExpiryReasons1764001700000 } from './1764001700000-token-expiry-reasons';
import { Disputes1764001710000 } from './1764001710000-disputes';
import { StaffRoles1764001800000 } from './1764001800000-staff-roles';
import { AuditLog1764001900000 } from './1764001900000-audit-log';
import { OrderNotes1764001910000 } from './1764001910000-order-notes';
import { TemplateVersions1764002000000 } from './1764002000000-template-versions';
import { NotificationLogIndexes1764002100000 } from './1764002100000-notification-log-indexes';
import { TimelineIndexes1764002200000 } from './1764002200000-timeline-indexes';
import { SiteCorsOrigins1764002250000 } from './1764002250000-site-cors-origins';
import { ConsoleSessions1764002300000 } from './1764002300000-console-sessions';
import { OrderSearchIndexes1764002350000 } from './1764002350000-order-search-indexes';
import { CustomerListIndexes1764002360000 } from './1764002360000-customer-list-indexes';
import { TokenListIndexes1764002370000 } from './1764002370000-token-list-indexes';

/** Every migration, in order. A new migration is a new file here, never an edit of an applied one. */
export const migrations = [
  Foundation1764000000000,
  Accounts1764000100000,
  AuthSmsCodes1764000110000,
  Messaging1764000200000,
  Content1764000300000,
  MailOutboxText1764000400000,
  Tokens1764000500000,
  Orders1764000600000,
  Identities1764000700000,
  SiteChanges1764000800000,
  ContentPageIndexes1764000900000,
  DropProductAppIndex1764001000000,
  PaymentIntegrity1764001100000,
  GiftTokens1764001200000,
  Refunds1764001300000,
  OutboxTextPart1764001400000,
  PaymentInbox1764001500000,
  PaymentIntents1764001600000,
  TokenExpiryReasons1764001700000,
  Disputes1764001710000,
  StaffRoles1764001800000,
  AuditLog1764001900000,
  OrderNotes1764001910000,
  TemplateVersions1764002000000,
  NotificationLogIndexes1764002100000,
  TimelineIndexes1764002200000,
  SiteCorsOrigins1764002250000,
  ConsoleSessions1764002300000,
  OrderSearchIndexes1764002350000,
  CustomerListIndexes1764002360000,
  TokenListIndexes1764002370000,
];
