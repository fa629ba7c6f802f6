/**
 * A Node.js consumer of the packed client (ESM, moduleResolution NodeNext; checked under Node16 too), making the
 * calls of calls.ts. Type-checked only (`tsc --noEmit`), by client/scripts/check-consumers.mjs.
 */
import { useTheClient } from './calls.js';

export const seen = await useTheClient(process.env.API_URL ?? 'https://shop.example.test');
