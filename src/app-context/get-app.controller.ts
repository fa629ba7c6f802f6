import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiProperty, ApiPropertyOptional, ApiTags } from '@nestjs/swagger';
import { ApiAccess, ApiFailureResponse } from '../common/api-responses';
import { appContextError } from './app-context.errors';
import { IdField } from '../common/dto-fields';
import { IdCipherService } from '../common/id-cipher.service';
import { Ctx, RequestContext, TenantSite } from '../common/request-context';
import { paysLive } from './payment-mode';
import { SitesService } from './sites.service';

class GetAppRequest {
  @IdField('appID', { doc: { description: 'App id; the site-id header is preferred. Read only outside production.' } })
  appID?: number;
}

/** The bootstrap answer of POST /getApp: branding at the top level, no envelope, exactly one public payment key. */
class GetAppResponse {
  @ApiProperty({ type: String, nullable: true, description: 'Path of the splash logo' }) splash_logo: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Path of the logo' }) logo: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Colour' }) background: string | null;
  @ApiProperty({ type: String, nullable: true }) colour1: string | null;
  @ApiProperty({ type: String, nullable: true }) colour2: string | null;
  @ApiProperty({ description: 'Encrypted app id' }) _id: string;
  @ApiProperty({ description: 'App key for the legacy appKey header (encrypted app id)' }) _publicKey: string;
  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'Outside production, and for an app marked payment_test_mode in production',
  })
  payment_test_public_key?: string | null;
  @ApiPropertyOptional({ type: String, nullable: true, description: 'In production, unless the app is marked payment_test_mode' })
  payment_live_public_key?: string | null;
}

@ApiTags('App')
@Controller('getApp')
export class GetAppController {
  constructor(
    private readonly sites: SitesService,
    private readonly cipher: IdCipherService,
  ) {}

  @Post()
  @HttpCode(200)
  @ApiOperation({ summary: 'Branding and public payment key of the app' })
  @ApiAccess('site-id')
  @ApiOkResponse({ type: GetAppResponse })
  getApp(@Ctx() ctx: RequestContext, @Body() _body: GetAppRequest): GetAppResponse {
    return this.bootstrap(ctx, ctx.app);
  }

  @Post(':domain')
  @HttpCode(200)
  @ApiOperation({ summary: 'Older variant: the app named by the domain path segment when no header names one' })
  @ApiAccess('none', 'site-id')
  @ApiOkResponse({ type: GetAppResponse })
  @ApiFailureResponse(404, 'App not found: neither the headers nor the domain name an app')
  async getAppByDomain(@Ctx() ctx: RequestContext, @Param('domain') domain: string, @Body() _body: GetAppRequest): Promise<GetAppResponse> {
    const site = ctx.site ?? (await this.sites.resolveByDomain(ctx, domain));
    if (!site) throw appContextError('APP_NOT_FOUND');
    return this.bootstrap(ctx, site);
  }

  private bootstrap(ctx: RequestContext, site: TenantSite): GetAppResponse {
    const publicKey = paysLive(site, ctx.production, undefined)
      ? { payment_live_public_key: site.payment_live_public_key }
      : { payment_test_public_key: site.payment_test_public_key };
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
