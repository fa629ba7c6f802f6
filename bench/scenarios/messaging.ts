import { Scenario } from './types';

/** Benchmark scenarios of the messaging module. */
export const messagingScenarios: Scenario[] = [];
