import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiOperation, ApiTags } from '@nestjs/swagger';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { NoAppContext } from '../common/request-context';

@ApiTags('Health')
@NoAppContext()
@Controller('health')
export class HealthController {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  @Get()
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: the process answers' })
  live() {
    return { status: 'Success', uptime: Math.round(process.uptime()) };
  }

  @Get('ready')
  @HttpCode(200)
  @ApiOperation({ summary: 'Readiness: the database answers (503 otherwise)' })
  async ready() {
    try {
      await this.dataSource.query('SELECT 1'); // Raw SQL: a readiness ping, no table involved
    } catch {
      throw new ApiError(503, 'Database unavailable');
    }
    return { status: 'Success', database: 'up' };
  }
}
