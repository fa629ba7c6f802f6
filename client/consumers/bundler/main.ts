/**
 * A browser front end using the packed client (moduleResolution bundler, DOM types, bundled by esbuild for the
 * browser), making the calls of calls.ts. Type-checked (`tsc --noEmit`) and bundled by client/scripts/check-consumers.mjs.
 */
import { useTheClient } from './calls.js';

export const seen = await useTheClient(window.location.origin);
