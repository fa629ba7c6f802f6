import { Scenario } from './types';

/** Benchmark scenarios of the auth module. */
export const authScenarios: Scenario[] = [];
