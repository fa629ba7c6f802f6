import { getAppScenario } from './get-app';
import { Scenario } from './types';

/** Every scenario `npm run bench` runs, in order. Later modules append theirs. */
export const scenarios: Scenario[] = [getAppScenario];
