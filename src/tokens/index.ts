/** The tokens module's public surface: import from here, not from its files. */
export { TokensModule } from './tokens.module';
export { TokenIssuerService } from './token-issuer.service';
export type { DigitalItem } from './token-issuer.service';
export { TokensService } from './tokens.service';
export { ListedTokenDto } from './tokens.dto';
export type { ListedToken, TokenListFilters } from './tokens.service';
export type { TokenRow } from './token-rows';
export { Token } from './entities/token.entity';
export { TokenTemplate } from './entities/token-template.entity';
export type { TemplateStatus } from './entities/token-template.entity';
export { TOKEN_STATUSES, TOKEN_TRANSITIONS } from './token-transitions';
export type { TokenStatus } from './token-transitions';
