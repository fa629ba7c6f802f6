import { auditLogScenario } from './audit-log';
import { authScenarios } from './auth';
import { checkoutScenario } from './checkout';
import { consoleScenario } from './console';
import { contentScenarios } from './content';
import { fairnessScenario } from './fairness';
import { footprintScenario } from './footprint';
import { getAppScenario } from './get-app';
import { messagingScenarios } from './messaging';
import { replicasScenario } from './replicas';
import { shopScenarios } from './shop';
import { sendLogScenario } from './send-log';
import { tenantsScenario } from './tenants';
import { shopMailsScenarios } from './shop-mails';
import { tokensScenarios } from './tokens';
import { webhookFloodScenario } from './webhook-flood';
import { Scenario } from './types';

/** Every scenario `npm run bench` runs, in order. */
export const scenarios: Scenario[] = [
  footprintScenario,
  getAppScenario,
  ...authScenarios,
  ...messagingScenarios,
  ...contentScenarios,
  ...tokensScenarios,
  ...shopScenarios,
  checkoutScenario,
  webhookFloodScenario,
  ...shopMailsScenarios,
  fairnessScenario,
  sendLogScenario,
  auditLogScenario,
  consoleScenario,
  replicasScenario,
  tenantsScenario,
];
