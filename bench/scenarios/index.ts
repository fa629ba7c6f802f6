import { authScenarios } from './auth';
import { contentScenarios } from './content';
import { getAppScenario } from './get-app';
import { messagingScenarios } from './messaging';
import { shopScenarios } from './shop';
import { Scenario } from './types';

/** Every scenario `npm run bench` runs, in order. */
export const scenarios: Scenario[] = [getAppScenario, ...authScenarios, ...messagingScenarios, ...contentScenarios, ...shopScenarios];
