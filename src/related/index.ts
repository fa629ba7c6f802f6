/** The related module's public surface: import from here, not from its files. */
export { RelatedModule } from './related.module';
export { Related } from './entities/related.entity';
export { RelatedLinksService } from './related-links.service';
export type { NewRelated, RelatedKey } from './related-links.service';
