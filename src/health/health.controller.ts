import { Controller, Get, HttpCode } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiTags } from '@nestjs/swagger';
import { ApiError } from '../common/api-error';
import { ApiAccess, ApiFailureResponse } from '../common/api-responses';
import { NoAppContext } from '../common/request-context';
import { DatabaseHealth } from '../database/database-health';

class Liveness {
  @ApiProperty({ enum: ['Success'] }) status: 'Success';
  @ApiProperty({ type: 'integer', description: 'Seconds since the process started' }) uptime: number;
}

class Readiness {
  @ApiProperty({ enum: ['Success'] }) status: 'Success';
  @ApiProperty({ enum: ['up'] }) database: 'up';
}

@ApiTags('Health')
@ApiAccess()
@NoAppContext()
@Controller('health')
export class HealthController {
  constructor(private readonly database: DatabaseHealth) {}

  @Get()
  @HttpCode(200)
  @ApiOperation({ summary: 'Liveness: the process answers' })
  @ApiOkResponse({ type: Liveness })
  live(): Liveness {
    return { status: 'Success', uptime: Math.round(process.uptime()) };
  }

  @Get('ready')
  @HttpCode(200)
  @ApiOperation({ summary: 'Readiness: the database answers (503 otherwise)' })
  @ApiOkResponse({ type: Readiness })
  @ApiFailureResponse(503, 'Database unavailable (or the server is shutting down)')
  async ready(): Promise<Readiness> {
    try {
      await this.database.ping();
    } catch {
      throw new ApiError(503, 'Database unavailable');
    }
    return { status: 'Success', database: 'up' };
  }
}
