import { Body, Controller, HttpCode, Post } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiAccess, ApiFailureResponse } from '../common/api-responses';
import { RequirePermission } from '../common/access-guards';
import { ApiError } from '../common/api-error';
import { success, successData } from '../common/envelope';
import { DecryptIds } from '../common/decrypt-ids.interceptor';
import { Ctx, RequestContext } from '../common/request-context';
import { Transactional } from '../common/transactional';
import { parseIsoDate } from './column-values';
import { ContentService } from './content.service';
import {
  ContentDiffAnswer,
  ContentEditAnswer,
  ContentHistoryAnswer,
  ContentRecordRequest,
  ContentVersion,
  ContentVersionAnswer,
  CreateContentRequest,
  DiffContentRequest,
  EditContentRequest,
  LiveTableRow,
  PublishContentRequest,
  RollbackContentRequest,
} from './content.dto';
import { LIFECYCLE_TRANSITIONS } from './lifecycle-transitions';
import { LifecycleService, Schedule, TransitionResult } from './lifecycle.service';

const TRANSITION_REFUSED = 'Cannot <action> a record whose current version is <status> (the lifecycle does not allow it)';

/** Admin endpoints of versioned content (docs/content.md): one app's admins, one record per call. */
@ApiTags('Content (admin)')
@ApiAccess('admin-bearer')
@ApiExtraModels(ContentVersion, LiveTableRow)
@ApiFailureResponse(
  400,
  'Validation error: table not registered (or live where versions are needed), _id/masterId missing, data naming unknown or non-writable columns, bad dates',
)
@ApiFailureResponse(401, 'Unauthorized: no bearer, or an invalid one')
@ApiFailureResponse(403, 'Insufficient permissions: not an admin of the app')
@ApiFailureResponse(404, 'Record not found / App not found')
@DecryptIds()
@Controller('content')
export class ContentController {
  constructor(
    private readonly content: ContentService,
    private readonly lifecycle: LifecycleService,
  ) {}

  @Post('create')
  @RequirePermission('content.edit')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({ summary: 'Create a record of a versioned table (first version, status New)' })
  @ApiOkResponse({ type: ContentVersionAnswer })
  async create(@Ctx() ctx: RequestContext, @Body() body: CreateContentRequest): Promise<ContentVersionAnswer> {
    return success({ message: LIFECYCLE_TRANSITIONS.create.message, data: await this.content.create(ctx, body.table, body.data) });
  }

  @Post('edit')
  @RequirePermission('content.edit')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({ summary: 'Save an edit: a new version in status Editing (live tables: updated in place)' })
  @ApiOkResponse({ type: ContentEditAnswer })
  @ApiFailureResponse(409, 'Someone else saved the record first (expectedCurrentId is stale, or the saves raced) / The record is deleted')
  async edit(@Ctx() ctx: RequestContext, @Body() body: EditContentRequest): Promise<ContentEditAnswer> {
    return success({
      message: LIFECYCLE_TRANSITIONS.edit.message,
      data: await this.content.edit(ctx, body.table, masterIdOf(body), body.data, body.expectedCurrentId),
    });
  }

  @Post('stage')
  @RequirePermission('content.edit')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({ summary: 'Publish to the staging target: Editing → Staged (preview)' })
  @ApiOkResponse({ type: ContentVersionAnswer })
  @ApiFailureResponse(409, TRANSITION_REFUSED)
  async stage(@Ctx() ctx: RequestContext, @Body() body: PublishContentRequest): Promise<ContentVersionAnswer> {
    return answer(await this.lifecycle.stage(ctx, body.table, masterIdOf(body), scheduleOf(body)));
  }

  @Post('publish')
  @RequirePermission('content.publish')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({ summary: 'Publish to the live target: → Published; other versions lose Staged/Published' })
  @ApiOkResponse({ type: ContentVersionAnswer })
  @ApiFailureResponse(409, TRANSITION_REFUSED)
  async publish(@Ctx() ctx: RequestContext, @Body() body: PublishContentRequest): Promise<ContentVersionAnswer> {
    return answer(await this.lifecycle.publish(ctx, body.table, masterIdOf(body), scheduleOf(body)));
  }

  @Post('promote')
  @RequirePermission('content.publish')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({ summary: 'Staged → Published' })
  @ApiOkResponse({ type: ContentVersionAnswer })
  @ApiFailureResponse(409, TRANSITION_REFUSED)
  async promote(@Ctx() ctx: RequestContext, @Body() body: PublishContentRequest): Promise<ContentVersionAnswer> {
    return answer(await this.lifecycle.promote(ctx, body.table, masterIdOf(body), scheduleOf(body)));
  }

  @Post('expire')
  @RequirePermission('content.publish')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({ summary: 'Published or Staged → Expired, now' })
  @ApiOkResponse({ type: ContentVersionAnswer })
  @ApiFailureResponse(409, TRANSITION_REFUSED)
  async expire(@Ctx() ctx: RequestContext, @Body() body: ContentRecordRequest): Promise<ContentVersionAnswer> {
    return answer(await this.lifecycle.expire(ctx, body.table, masterIdOf(body)));
  }

  @Post('delete')
  @RequirePermission('content.publish')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({ summary: 'Soft delete: the current version becomes Deleted, no version stays visible' })
  @ApiOkResponse({ type: ContentVersionAnswer })
  @ApiFailureResponse(409, TRANSITION_REFUSED)
  async delete(@Ctx() ctx: RequestContext, @Body() body: ContentRecordRequest): Promise<ContentVersionAnswer> {
    return answer(await this.lifecycle.delete(ctx, body.table, masterIdOf(body)));
  }

  @Post('rollback')
  @RequirePermission('content.publish')
  @HttpCode(200)
  @Transactional()
  @ApiOperation({ summary: 'Make an earlier version current again (status Rolled Back)' })
  @ApiOkResponse({ type: ContentVersionAnswer })
  @ApiFailureResponse(409, 'This version is already the current one / Cannot roll back …')
  async rollback(@Ctx() ctx: RequestContext, @Body() body: RollbackContentRequest): Promise<ContentVersionAnswer> {
    return answer(await this.lifecycle.rollback(ctx, body.table, masterIdOf(body), body.toCurrentId));
  }

  @Post('history')
  @RequirePermission('content.view')
  @HttpCode(200)
  @ApiOperation({ summary: 'Every version of a record, oldest first (core_data rows)' })
  @ApiOkResponse({ type: ContentHistoryAnswer, description: '{ status, data: [ core_data rows with _id ] }' })
  async history(@Ctx() ctx: RequestContext, @Body() body: ContentRecordRequest): Promise<ContentHistoryAnswer> {
    return successData(await this.content.history(ctx, body.table, masterIdOf(body)));
  }

  @Post('diff')
  @RequirePermission('content.view')
  @HttpCode(200)
  @ApiOperation({ summary: 'Field changes between two versions of a record' })
  @ApiOkResponse({ type: ContentDiffAnswer })
  async diff(@Ctx() ctx: RequestContext, @Body() body: DiffContentRequest): Promise<ContentDiffAnswer> {
    return successData(await this.content.diff(ctx, body.table, masterIdOf(body), body.fromCurrentId, body.toCurrentId));
  }
}

function masterIdOf(body: ContentRecordRequest): number {
  const id = body._id ?? body.masterId;
  if (id === undefined) throw ApiError.field('_id', '_id (or masterId) is required');
  return id;
}

function scheduleOf(body: PublishContentRequest): Schedule {
  const date = (name: 'publishSetDate' | 'publishExpireDate'): Date | undefined => {
    const value = body[name];
    if (value === undefined || value === null || value === '') return undefined;
    const parsed = parseIsoDate(value);
    if (!parsed) throw ApiError.field(name, `${name} must be an ISO 8601 date`);
    return parsed;
  };
  const schedule: Schedule = { publishSetDate: date('publishSetDate'), publishExpireDate: date('publishExpireDate') };
  const start = schedule.publishSetDate ?? new Date();
  if (schedule.publishExpireDate && schedule.publishExpireDate <= start) {
    throw ApiError.field('publishExpireDate', 'publishExpireDate must be after publishSetDate (or after now)');
  }
  return schedule;
}

function answer(result: TransitionResult): ContentVersionAnswer {
  return success({ message: result.message, data: result.version });
}
