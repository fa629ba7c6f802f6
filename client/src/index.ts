import createFetchClient, { type ClientOptions } from 'openapi-fetch';
import type { components, operations, paths } from './schema.js';

export type { components, operations, paths };

/** The response and request classes of the document, by name (`Schemas['LoginAnswer']`). */
export type Schemas = components['schemas'];

/**
 * A client of the platform service, typed by its OpenAPI document: every path, method, request body,
 * parameter and answer (success and failure) is checked by the compiler.
 *
 *   const api = createClient({ baseUrl: 'https://shop.example.test', headers: { 'site-id': '7' } });
 *   const { data, error, response } = await api.POST('/auth/login', { body: { email, password } });
 *
 * In production the base URL ends in /api/v2 (the service's base path); /health and /metrics stay outside it.
 */
export function createClient(options: ClientOptions = {}) {
  return createFetchClient<paths>(options);
}

export type Client = ReturnType<typeof createClient>;
