import { authScenarios } from './auth';
import { contentScenarios } from './content';
import { getAppScenario } from './get-app';
import { messagingScenarios } from './messaging';
import { shopScenarios } from './shop';
import { tokensScenarios } from './tokens';
import { Scenario } from './types';

/** Every scenario `npm run bench` runs, in order. */
export const scenarios: Scenario[] = [getAppScenario, ...authScenarios, ...messagingScenarios, ...contentScenarios, ...tokensScenarios, ...shopScenarios];
