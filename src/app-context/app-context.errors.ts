import { errorTable } from '../common/api-error';

/** Tenant resolution's failures. */
export const appContextError = errorTable({
  APP_NOT_FOUND: { status: 404, message: 'App not found' },
  /** Messaging routes read only the site-id header and answer in the `Error` envelope. */
  SITE_ID_UNAUTHORIZED: { status: 401, message: 'Unauthorized', envelope: 'Error' },
});
