import 'reflect-metadata';
import { Body, Controller, Get, Headers, HttpCode, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Pool } from 'pg';
import { pageAnswer, pageQuery, PageRequest } from './page-query';
import { TOKEN_SELECT } from './token-select';

/**
 * The framework's floor: the raw baselines' queries and answers (validate-token.ts, get-data-rows.ts) in a bare
 * NestJS-on-Fastify controller, with none of the service's layers (tenant guard, rate limit, validation pipe,
 * exception filter, TypeORM, request log, metrics). Its ratio to a raw handler is the most any NestJS service
 * can reach on that route and machine.
 */
const pool = new Pool({ connectionString: process.env.DATABASE_URL, max: 10 });

@Controller()
class BareController {
  @Get('ready')
  ready() {
    return { ok: true };
  }

  @Post('validateToken')
  @HttpCode(200)
  async validateToken(@Body() body: { tokenValue: string }, @Headers('site-id') siteId: string) {
    const { rows } = await pool.query(TOKEN_SELECT, [body.tokenValue, Number(siteId)]);
    if (!rows[0]) return { status: 'Failed', message: 'Token not found', data: null };
    return { status: 'Success', message: 'Token is valid', data: rows[0], datetime: new Date().toISOString() };
  }

  @Post('getDataRows')
  @HttpCode(200)
  async getDataRows(@Body() body: PageRequest, @Headers('site-id') siteId: string) {
    const { statement, page, perPage } = pageQuery(Number(siteId), body);
    const { rows } = await pool.query(statement);
    return pageAnswer(rows, page, perPage);
  }
}

@Module({ controllers: [BareController] })
class BareModule {}

void (async () => {
  const app = await NestFactory.create<NestFastifyApplication>(BareModule, new FastifyAdapter(), { logger: false });
  await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
})();
