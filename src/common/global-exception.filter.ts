import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, GENERIC_ERROR_MESSAGE } from './api-error';

/** Fastify's own client errors, by code: the request was bad, not the server. */
const FASTIFY_CLIENT_ERRORS: Record<string, [number, string]> = {
  FST_ERR_CTP_INVALID_JSON_BODY: [400, 'Malformed JSON in request body'],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, 'Request body is empty but Content-Type is application/json'],
  FST_ERR_CTP_BODY_TOO_LARGE: [413, 'Request body is too large'],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, 'Unsupported Content-Type: send application/json'],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, 'Content-Length does not match the body'],
  FST_ERR_BAD_URL: [400, 'Malformed URL'],
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

/**
 * Any error as the answer to send: known failures keep their envelope; anything unexpected becomes the
 * spec's generic 500, with the detail only in the log (which carries the request id).
 */
export function toApiError(exception: unknown, request: Pick<FastifyRequest, 'method' | 'url'>): ApiError {
  if (exception instanceof ApiError) return exception;

  const code = (exception as { code?: string } | null)?.code;
  if (code && FASTIFY_CLIENT_ERRORS[code]) {
    const [status, message] = FASTIFY_CLIENT_ERRORS[code];
    return new ApiError(status, message);
  }
  const status = exception instanceof HttpException ? exception.getStatus() : (exception as { statusCode?: number } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const message = status === 404 ? `Route not found: ${request.method} ${request.url.split('?')[0]}` : (HTTP_MESSAGES[status] ?? 'Bad request');
    return new ApiError(status, message);
  }

  const err = exception instanceof Error ? { type: exception.name, message: exception.message, stack: exception.stack } : { value: String(exception) };
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
