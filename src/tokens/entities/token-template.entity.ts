import { Check, Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { Site } from '../../app-context';

/** The status a template may give new tokens (gift tokens are always gift_pending). */
export type TemplateStatus = 'pending' | 'active';

/**
 * A row of core_token_template: what tokens issued for a product start with.
 * A template is linked to a product by a core_related row named `core_token_template` (parent_table
 * core_products, parent the product's master id, `linked` the template id).
 */
@Entity('core_token_template')
@Check('core_token_template_status_default_check', `status_default IN ('pending', 'active')`)
export class TokenTemplate {
  @PrimaryGeneratedColumn()
  id: number;

  @Column({ type: 'integer' })
  app_id: number;

  @ManyToOne(() => Site, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id', foreignKeyConstraintName: 'core_token_template_app_id_fkey' })
  site?: Site;

  @Column({ type: 'varchar', length: 100 })
  name: string;

  @Column({ type: 'varchar', length: 20, default: 'pending' })
  status_default: TemplateStatus;

  /** Days from purchase until expiry; null: the tokens never expire. */
  @Column({ type: 'integer', nullable: true })
  expiry_days: number | null;

  @Column({ type: 'integer', default: 3 })
  maximum_activations: number;

  @CreateDateColumn({ type: 'timestamptz' })
  created: Date;

  @UpdateDateColumn({ type: 'timestamptz' })
  updated: Date;
}
