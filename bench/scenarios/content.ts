import { Scenario } from './types';

/** Benchmark scenarios of the content module. */
export const contentScenarios: Scenario[] = [];
