/* OpenAPI descriptions of settings.controller.ts, too long to stand in its decorators. */

export const READ_SETTINGS_DESCRIPTION =
  'Name, domain, currency, payment test mode, sender address, branding and payment keys. ' +
  'The private keys and the webhook secret are write-only: answered masked (`sk_test_…abcd`) or null when unset.';

export const UPDATE_SETTINGS_DESCRIPTION =
  'All or nothing: every change is checked as `tenant:update` checks it (a valid domain no other app has, an ISO 4217 currency, ' +
  'an email address, the provider key formats; production refuses the sample keys this repository publishes), then written ' +
  'with its audit row (`settings.update`, secrets masked) in one transaction. Answers the settings after it.';

export const UPDATE_SETTINGS_400 =
  'Validation error naming the field: changes, or changes.<name> (not a setting, empty, too long, an invalid domain, ' +
  'currency, address or key, a domain of another app)';
