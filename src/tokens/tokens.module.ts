import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { VersioningModule } from '../versioning';
import { Token } from './entities/token.entity';
import { TokenTemplate } from './entities/token-template.entity';
import { TokenTemplateRepository } from './repositories/token-template.repository';
import { TokenRepository } from './repositories/token.repository';
import { TokenIssuerService } from './token-issuer.service';
import { TokensController } from './tokens.controller';
import { TokensService } from './tokens.service';

/**
 * Digital access tokens: core_token_template and core_tokens, issuance for
 * order completion (TokenIssuerService, exported) and the /ecommerce token endpoints. No dependency on orders.
 */
@Module({
  imports: [TypeOrmModule.forFeature([TokenTemplate, Token]), VersioningModule],
  controllers: [TokensController],
  providers: [TokenRepository, TokenTemplateRepository, TokenIssuerService, TokensService],
  exports: [TokenIssuerService, TokensService],
})
export class TokensModule {}
