import { createHash, timingSafeEqual } from 'node:crypto';
import { Controller, Get, Headers, HttpCode, Inject, Res } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAccess, ApiFailureResponse, ApiMediaResponse, SECURITY_SCHEMES } from '../common/api-responses';
import type { FastifyReply } from 'fastify';
import { ApiError } from '../common/api-error';
import { NoAppContext } from '../common/request-context';
import { AppConfig } from '../config/app-config';
import { APP_CONFIG } from '../config/config.module';
import { MetricsService } from './metrics.service';
import { METRICS_DESCRIPTION } from './metrics.docs';

/** The security scheme of /metrics in the OpenAPI document (src/openapi.ts declares it). */
export const METRICS_SECURITY = SECURITY_SCHEMES.metrics;

const digest = (value: string) => createHash('sha256').update(value).digest();

@ApiTags('Health')
@NoAppContext()
@Controller('metrics')
export class MetricsController {
  private readonly token: Buffer | null;

  constructor(
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.token = config.metricsToken === null ? null : digest(config.metricsToken);
  }

  @Get()
  @HttpCode(200)
  @ApiOperation({
    summary: 'Prometheus metrics of this instance (text exposition format)',
    description: METRICS_DESCRIPTION,
  })
  @ApiAccess('none', METRICS_SECURITY) // the token only when METRICS_TOKEN is set
  @ApiMediaResponse(200, 'text/plain', 'Prometheus text format 0.0.4')
  @ApiFailureResponse(401, 'METRICS_TOKEN is set and the bearer token is missing or wrong')
  scrape(@Headers('authorization') authorization: string | undefined, @Res({ passthrough: true }) reply: FastifyReply): Promise<string> {
    if (this.token && !this.authorized(authorization)) {
      throw ApiError.unauthorized({ 'www-authenticate': 'Bearer realm="metrics"' });
    }
    reply.header('content-type', this.metrics.contentType).header('cache-control', 'no-store');
    return this.metrics.scrape();
  }

  private authorized(authorization: string | undefined): boolean {
    const match = /^Bearer +(\S+) *$/i.exec(authorization ?? '');
    return match !== null && timingSafeEqual(digest(match[1]), this.token!);
  }
}
