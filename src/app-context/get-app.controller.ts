import { Body, Controller, HttpCode, Inject, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { appContextError } from './app-context.errors';
import { IdField } from '../common/dto-fields';
import { IdCipher } from '../common/id-cipher.service';
import { Ctx, RequestContext } from '../common/request-context';
import { Site } from './entities/site.entity';
import { paysLive } from './payment-mode';
import { SitesService } from './sites.service';

class GetAppRequest {
  @IdField('appID', { doc: { description: 'App id; the site-id header is preferred. Read only outside production.' } })
  appID?: number;
}

class GetAppResponse {
  @ApiProperty({ nullable: true }) splash_logo: string | null;
  @ApiProperty({ nullable: true }) logo: string | null;
  @ApiProperty({ nullable: true }) background: string | null;
  @ApiProperty({ nullable: true }) colour1: string | null;
  @ApiProperty({ nullable: true }) colour2: string | null;
  @ApiProperty({ description: 'Encrypted app id' }) _id: string;
  @ApiProperty({ description: 'App key for the legacy appKey header (encrypted app id)' }) _publicKey: string;
  @ApiPropertyOptional({ description: 'Outside production, and for an app marked payment_test_mode in production' }) payment_test_public_key?: string | null;
  @ApiPropertyOptional({ description: 'In production, unless the app is marked payment_test_mode' }) payment_live_public_key?: string | null;
}

@ApiTags('App')
@Controller('getApp')
export class GetAppController {
  constructor(private readonly sites: SitesService, private readonly cipher: IdCipher) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Branding and public payment key of the app' })
  @ApiOkResponse({ type: GetAppResponse })
  getApp(@Ctx() ctx: RequestContext, @Body() _body: GetAppRequest): GetAppResponse {
    return this.bootstrap(ctx, ctx.app);
  }

  @Post(':domain')
  @HttpCode(200)
  @ApiOperation({ summary: 'Older variant: the app named by the domain path segment when no header names one' })
  @ApiOkResponse({ type: GetAppResponse })
  async getAppByDomain(@Ctx() ctx: RequestContext, @Param('domain') domain: string, @Body() _body: GetAppRequest): Promise<GetAppResponse> {
    const site = ctx.site ?? (await this.sites.findByDomain(ctx, domain));
    if (!site) throw appContextError('APP_NOT_FOUND');
    return this.bootstrap(ctx, site);
  }

  private bootstrap(ctx: RequestContext, site: Site): GetAppResponse {
    const publicKey = paysLive(site, ctx.production, undefined) ? { payment_live_public_key: site.payment_live_public_key } : { payment_test_public_key: site.payment_test_public_key };
    return {
      splash_logo: site.splash_logo,
      logo: site.logo,
      background: site.background,
      colour1: site.colour1,
      colour2: site.colour2,
      _id: this.cipher.encryptAppId(site.id),
      _publicKey: this.cipher.legacyAppKey(site.id),
      ...publicKey,
    };
  }
}
