import { Check, Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Site } from '../../app-context';

/**
 * A row of core_products: one version of a product (a versioned table, core_tables.Live = false). Its rows
 * are written by the generic content paths; the entity describes the table. Money is integer cents.
 */
@Entity('core_products')
@Check('core_products_price_check', 'price >= 0')
@Check('core_products_tax_check', 'tax >= 0')
@Check('core_products_bond_check', 'bond >= 0')
@Check('core_products_IsDigital_check', '"IsDigital" IN (0, 1)')
@Check('core_products_IsEvent_check', '"IsEvent" IN (0, 1)')
// /getDataRows pages in these orders walk one of these (ties by id), ASC or DESC, instead of sorting the tenant's rows.
@Index('core_products_app_title_idx', ['app_id', 'title', 'id'])
@Index('core_products_app_created_idx', ['app_id', 'created', 'id'])
@Index('core_products_app_updated_idx', ['app_id', 'updated', 'id'])
@Index('core_products_app_sort_order_idx', ['app_id', 'sort_order', 'id'])
@Index('core_products_app_price_idx', ['app_id', 'price', 'id'])
export class Product {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer' })
  app_id: number;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_products_app_id_fkey' })
  site?: Site;

  @Column({ type: 'varchar', length: 500, default: '' })
  title: string;

  @Column({ type: 'text', nullable: true })
  description: string | null;

  @Column({ type: 'varchar', length: 100, nullable: true })
  sku: string | null;

  @Column({ type: 'varchar', length: 1000, nullable: true })
  image: string | null;

  @Column({ type: 'integer', default: 0 })
  price: number;

  @Column({ type: 'integer', default: 0 })
  tax: number;

  @Column({ type: 'integer', default: 0 })
  bond: number;

  @Column({ type: 'smallint', default: 0 })
  IsDigital: 0 | 1;

  @Column({ type: 'smallint', default: 0 })
  IsEvent: 0 | 1;

  @Column({ type: 'timestamptz', nullable: true })
  event_date: Date | null;

  @Column({ type: 'integer', default: 0 })
  sort_order: number;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  created: Date;

  @Column({ type: 'timestamptz', default: () => 'now()' })
  updated: Date;
}
