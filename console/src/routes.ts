import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

type Screen = LazyExoticComponent<ComponentType<{ params: Record<string, string> }>>;

export interface Route {
  path: string;
  screen: Screen;
  /** Shown only to staff holding this permission. */
  permission?: string;
}

export interface NavEntry {
  to: string;
  label: string;
  permission: string;
  /** Paths under this prefix mark the entry current. */
  prefix: string;
}

const Orders = lazy(() => import('./screens/Orders'));
const OrderDetail = lazy(() => import('./screens/OrderDetail'));

export const routes: Route[] = [
  { path: '/orders', screen: Orders, permission: 'orders.view' },
  { path: '/orders/:id', screen: OrderDetail, permission: 'orders.view' },
];

export const nav: NavEntry[] = [{ to: '/orders', label: 'Orders', permission: 'orders.view', prefix: '/orders' }];
