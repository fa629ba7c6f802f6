import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isDatabaseUnavailable, isStatementTimeout, TenantShareExhausted } from '../database/connection-errors';
import { ApiError, GENERIC_ERROR_MESSAGE } from './api-error';

/** Longer URLs get 414 (the API takes its input in JSON bodies; Node refuses a request head over 16 KB). */
export const MAX_URL_LENGTH = 8192;

/** Fastify's own client errors, by code: the request was bad, not the server. */
const FASTIFY_CLIENT_ERRORS: Record<string, [number, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'Malformed JSON in request body'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'Request body is empty but Content-Type is application/json'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'Request body is too large'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'Unsupported Content-Type: send application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'Content-Length does not match the body'],
  FST_ERR_BAD_URL: [400, 'Malformed URL'],
  FST_ERR_MAX_PARAM_LENGTH: [414, 'URL is too long'],
};

const HTTP_MESSAGES: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  405: 'Method not allowed',
  413: 'Request body is too large',
  415: 'Unsupported Content-Type: send application/json',
  429: 'Too many requests, please try again later',
};

const logger = new Logger('Exceptions');

export const DATABASE_UNAVAILABLE = 'Database unavailable';
/** What a 503 for an unreachable database (or a statement over its time limit) asks the client to wait before retrying. */
const DATABASE_RETRY_AFTER_S = 5;
export const STATEMENT_TIMEOUT_MESSAGE = 'The request took too long: try a narrower query';
export const TENANT_SHARE_EXHAUSTED_MESSAGE = 'Too many requests of this app are in progress, please try again shortly';

/**
 * Any error as the answer to send: known failures keep their envelope; a database that cannot be reached is
 * 503 `Database unavailable` with Retry-After, and so are a statement cancelled by the statement timeout and
 * a tenant's full share of the pool (each with its own message); anything else unexpected becomes the
 * contract's generic 500 (`An error occurred while processing your request`), with the detail only in the log
 * (which carries the request id).
 */
export function toApiError(exception: unknown, request: Pick<FastifyRequest, 'method' | 'url'>): ApiError {
  if (exception instanceof ApiError) return exception;
  if (exception instanceof TenantShareExhausted) {
    return new ApiError(503, TENANT_SHARE_EXHAUSTED_MESSAGE, undefined, {}, 'Failed', {
      'retry-after': String(exception.retryAfterSeconds),
    });
  }
  if (isStatementTimeout(exception)) {
    logger.warn({ method: request.method, url: request.url }, 'Statement timeout');
    return new ApiError(503, STATEMENT_TIMEOUT_MESSAGE, undefined, {}, 'Failed', { 'retry-after': String(DATABASE_RETRY_AFTER_S) });
  }

  const code = (exception as { code?: string } | null)?.code;
  if (code && FASTIFY_CLIENT_ERRORS[code]) {
    const [status, message] = FASTIFY_CLIENT_ERRORS[code];
    return new ApiError(status, message);
  }
  const status = exception instanceof HttpException ? exception.getStatus() : (exception as { statusCode?: number } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return status === 404 ? routeNotFound(request, []) : new ApiError(status, HTTP_MESSAGES[status] ?? 'Bad request');
  }

  const err =
    exception instanceof Error
      ? { type: exception.name, message: exception.message, stack: exception.stack }
      : { value: String(exception) };
  if (isDatabaseUnavailable(exception)) {
    logger.warn({ err: { type: err.type, message: err.message }, method: request.method, url: request.url }, 'Database unavailable');
    return new ApiError(503, DATABASE_UNAVAILABLE, undefined, {}, 'Failed', { 'retry-after': String(DATABASE_RETRY_AFTER_S) });
  }
  logger.error({ err, method: request.method, url: request.url }, 'Unhandled error');
  return new ApiError(500, GENERIC_ERROR_MESSAGE);
}

/** The one place where errors thrown in routes become HTTP answers. */
@Catch()
export class GlobalExceptionFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    sendError(host.switchToHttp().getResponse<FastifyReply>(), toApiError(exception, host.switchToHttp().getRequest<FastifyRequest>()));
  }
}

export function sendError(reply: FastifyReply, error: ApiError): void {
  for (const [name, value] of Object.entries(error.headers)) reply.header(name, value);
  reply.status(error.httpStatus).send(error.toBody());
}

/** No route for this method and path: 405 with `Allow` when the path has routes for other methods, else 404. */
export function routeNotFound(request: Pick<FastifyRequest, 'method' | 'url'>, allowedMethods: string[]): ApiError {
  const what = `${request.method} ${request.url.split('?')[0]}`;
  if (allowedMethods.length === 0) return new ApiError(404, `Route not found: ${what}`);
  return new ApiError(405, `Method not allowed: ${what}`, undefined, {}, 'Failed', { allow: allowedMethods.join(', ') });
}

/**
 * Node's HTTP parser refused the request (Fastify's `clientErrorHandler`): a malformed request head, a head
 * over Node's 16 KB limit, or a client too slow to send it. There is no request to reply to yet, so the
 * envelope is written on the socket, which then closes.
 */
export function answerClientError(error: Error & { code?: string; rawPacket?: unknown }, socket: Duplex): void {
  // Node reports every further chunk of a refused request too: answer once.
  if (error.code === 'ECONNRESET' || socket.destroyed || answeredSockets.has(socket)) return;
  answeredSockets.add(socket);
  const apiError =
    error.code === 'HPE_HEADER_OVERFLOW'
      ? requestLineLength(error.rawPacket) > MAX_URL_LENGTH
        ? new ApiError(414, 'URL is too long')
        : new ApiError(431, 'Request headers are too large')
      : error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? new ApiError(408, 'Request timeout')
        : new ApiError(400, 'Malformed HTTP request');
  const body = JSON.stringify(apiError.toBody());
  if (!socket.writable) return void socket.destroy();
  // No request was parsed, so none has an id yet: this answer gets its own, logged like a request's.
  const requestId = randomUUID();
  logger.log({ requestId, status: apiError.httpStatus, code: error.code }, 'Request refused by the HTTP parser');
  const head =
    `HTTP/1.1 ${apiError.httpStatus} ${STATUS_CODES[apiError.httpStatus]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `X-Request-Id: ${requestId}\r\n` +
    'Connection: close\r\n\r\n';
  // Half-close and let the client finish sending: a reset while it still sends can discard the answer on its side.
  socket.end(head + body);
  setTimeout(() => socket.destroy(), 1000).unref();
}
const answeredSockets = new WeakSet<Duplex>();

/** Length of the request line at the start of the packet Node was parsing when it gave up (0 if it holds none). */
function requestLineLength(packet: unknown): number {
  if (!Buffer.isBuffer(packet) || !/^[A-Z]+ /.test(packet.toString('latin1', 0, 16))) return 0;
  const end = packet.indexOf('\r\n');
  return end === -1 ? packet.length : end;
}
