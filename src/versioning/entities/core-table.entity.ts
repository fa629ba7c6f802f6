import { Column, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';

/** A row of core_tables: a table the generic content paths may use, and whether it is live or versioned. */
@Entity('core_tables')
@Unique('core_tables_table_name_key', ['table_name'])
export class CoreTable {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'varchar', length: 100 })
  table_name: string;

  /** Live tables keep no history; versioned ones (false) keep their version chain in core_data. */
  @Column({ type: 'boolean', default: true })
  Live: boolean;

  @Column({ type: 'varchar', length: 100, nullable: true })
  title_field: string | null;

  @Column({ type: 'varchar', length: 500, nullable: true })
  description: string | null;
}
