import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import Orders from './screens/Orders'; // eager: see `routes`
import type { Permission } from './session';

type ScreenProps = { params: Record<string, string> };
type Screen = ComponentType<ScreenProps> | LazyExoticComponent<ComponentType<ScreenProps>>;

export interface Route {
  path: string;
  screen: Screen;
  /** Shown only to staff holding this permission. */
  permission?: Permission;
}

export interface NavEntry {
  to: string;
  label: string;
  permission: Permission;
  /** Paths under this prefix mark the entry current. */
  prefix: string;
}

const OrderDetail = lazy(() => import('./screens/order'));
const MailTemplates = lazy(() => import('./screens/mail-templates'));
const MailLog = lazy(() => import('./screens/MailLog'));
const Staff = lazy(() => import('./screens/Staff'));
const Audit = lazy(() => import('./screens/Audit'));
const Settings = lazy(() => import('./screens/Settings'));
const Customers = lazy(() => import('./screens/Customers'));
const Tokens = lazy(() => import('./screens/Tokens'));
const Content = lazy(() => import('./screens/content'));

/**
 * The console's screens. The orders list, the first screen most staff see, is in the main chunk, so its first
 * page is asked for as soon as the session is back, not after a lazy chunk and React's Suspense throttle
 * (docs/performance.md, issue 39's figures); the others load when first opened.
 */
export const routes: Route[] = [
  { path: '/orders', screen: Orders, permission: 'orders.view' },
  { path: '/orders/:id', screen: OrderDetail, permission: 'orders.view' },
  { path: '/customers', screen: Customers, permission: 'customers.view' },
  { path: '/customers/:id', screen: Customers, permission: 'customers.view' },
  { path: '/tokens', screen: Tokens, permission: 'orders.view' },
  { path: '/content', screen: Content, permission: 'content.view' },
  { path: '/content/:table', screen: Content, permission: 'content.view' },
  { path: '/content/:table/:id', screen: Content, permission: 'content.view' },
  { path: '/mail/templates', screen: MailTemplates, permission: 'mail.templates.view' },
  { path: '/mail/templates/:event', screen: MailTemplates, permission: 'mail.templates.view' },
  { path: '/mail/log', screen: MailLog, permission: 'mail.log.view' },
  { path: '/mail/log/:id', screen: MailLog, permission: 'mail.log.view' },
  { path: '/staff', screen: Staff, permission: 'staff.view' },
  { path: '/audit', screen: Audit, permission: 'audit.view' },
  { path: '/settings', screen: Settings, permission: 'settings.view' },
];

export const nav: NavEntry[] = [
  { to: '/orders', label: 'Orders', permission: 'orders.view', prefix: '/orders' },
  { to: '/customers', label: 'Customers', permission: 'customers.view', prefix: '/customers' },
  { to: '/tokens', label: 'Access tokens', permission: 'orders.view', prefix: '/tokens' },
  { to: '/content', label: 'Content', permission: 'content.view', prefix: '/content' },
  { to: '/mail/templates', label: 'Mail templates', permission: 'mail.templates.view', prefix: '/mail/templates' },
  { to: '/mail/log', label: 'Send log', permission: 'mail.log.view', prefix: '/mail/log' },
  { to: '/staff', label: 'Staff', permission: 'staff.view', prefix: '/staff' },
  { to: '/audit', label: 'Audit log', permission: 'audit.view', prefix: '/audit' },
  { to: '/settings', label: 'Settings', permission: 'settings.view', prefix: '/settings' },
];
