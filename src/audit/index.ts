/** The audit module's public surface: import from here, not from its files. */
export { AuditModule } from './audit.module';
export { AuditLog } from './entities/audit-log.entity';
export type { AuditChanges } from './entities/audit-log.entity';
export { AuditService } from './audit.service';
export type { AuditEntry, AuditItem, AuditListFilters } from './audit.service';
export { MASKED, diffChanges, isSecretField } from './audit-changes';
