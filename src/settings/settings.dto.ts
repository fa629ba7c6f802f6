import { ApiProperty } from '@nestjs/swagger';
import { IsNotEmpty, IsObject } from 'class-validator';
import { SuccessEnvelope } from '../common/api-responses';
import { IdField } from '../common/dto-fields';

/* POST /staff/settings and /staff/settings/update (README "Tenant settings"). */

const APP_ID_DOC = { description: 'App id; the site-id header is preferred. Read from the body only outside production.' };

export class ReadSettingsRequest {
  @IdField('appID', { doc: APP_ID_DOC })
  appID?: number;
}

export class UpdateSettingsRequest {
  @IdField('appID', { doc: APP_ID_DOC })
  appID?: number;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'The settings to change, by column: name, domain, currency (ISO 4217), payment_test_mode (boolean), email_from (a@b or Name <a@b>), ' +
      'cors_origins (an array of at most 20 browser origins, https://host[:port]; http only for localhost outside production; null or [] for none), ' +
      'logo, splash_logo, background, colour1, colour2, payment_test_private_key (sk_test_…/rk_test_…), payment_live_private_key (sk_live_…/rk_live_…), ' +
      'payment_webhook_secret (whsec_…), payment_test_public_key (pk_test_…), payment_live_public_key (pk_live_…). ' +
      'null or "" clears an optional one. Any other name: 400 naming changes.<name>. Production refuses the sample keys this repository publishes.',
    example: { name: 'Demo Shop', currency: 'eur', colour1: '#336699' },
  })
  @IsNotEmpty({ message: 'changes is required' })
  @IsObject({ message: 'changes must be an object' })
  changes: Record<string, unknown>;
}

export class BrandingDto {
  @ApiProperty({ type: String, nullable: true }) logo: string | null;
  @ApiProperty({ type: String, nullable: true }) splash_logo: string | null;
  @ApiProperty({ type: String, nullable: true }) background: string | null;
  @ApiProperty({ type: String, nullable: true }) colour1: string | null;
  @ApiProperty({ type: String, nullable: true }) colour2: string | null;
}

const MASKED = 'Write-only: its provider prefix and last 4 characters (`sk_test_…abcd`), or null when unset';

export class TenantSettingsDto {
  @ApiProperty({ type: 'integer' }) appID: number;
  @ApiProperty() name: string;
  @ApiProperty() domain: string;
  @ApiProperty({ description: 'ISO 4217, lower case' }) currency: string;
  @ApiProperty({ description: 'Payments use the test keys' }) payment_test_mode: boolean;
  @ApiProperty({ type: String, nullable: true }) email_from: string | null;
  @ApiProperty({
    type: [String],
    description: "Browser origins besides https://<domain> whose requests may read the API's answers (CORS), as browsers send them",
    example: ['https://www.shop.example.test', 'http://localhost:5173'],
  })
  cors_origins: string[];
  @ApiProperty({ type: BrandingDto }) branding: BrandingDto;
  @ApiProperty({ type: String, nullable: true, description: 'Public (also served by /getApp)' }) payment_test_public_key: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Public (also served by /getApp)' }) payment_live_public_key: string | null;
  @ApiProperty({ type: String, nullable: true, description: MASKED }) payment_test_private_key: string | null;
  @ApiProperty({ type: String, nullable: true, description: MASKED }) payment_live_private_key: string | null;
  @ApiProperty({ type: String, nullable: true, description: MASKED }) payment_webhook_secret: string | null;
}

export class ReadSettingsAnswer extends SuccessEnvelope {
  @ApiProperty({ type: TenantSettingsDto }) data: TenantSettingsDto;
}

export class UpdatedSettingsDto extends TenantSettingsDto {
  @ApiProperty({ type: [String], description: 'The settings whose value changed' }) changed: string[];
}

export class UpdateSettingsAnswer extends SuccessEnvelope {
  @ApiProperty({ type: UpdatedSettingsDto }) data: UpdatedSettingsDto;
}
