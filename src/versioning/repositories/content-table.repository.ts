import { Injectable } from '@nestjs/common';
import { TransactionScope } from '../../database/transaction-scope';
import { TransactionalConnection } from '../../database/transactional-connection';
import { CoreTable } from '../entities/core-table.entity';

export type TableRegistration = Pick<CoreTable, 'table_name' | 'Live' | 'title_field'>;

/** core_tables, the registry of the tables the generic content paths may use. It is global: no app column. */
@Injectable()
export class ContentTableRepository {
  constructor(private readonly connection: TransactionalConnection) {}

  /** Every registered table (read through the caller's transaction when it holds one). */
  registered(ctx: TransactionScope): Promise<TableRegistration[]> {
    return this.connection.repository(ctx, CoreTable).find({ select: { table_name: true, Live: true, title_field: true } });
  }
}
