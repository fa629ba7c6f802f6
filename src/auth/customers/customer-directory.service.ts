import { Injectable } from '@nestjs/common';
import { AuditService } from '../../audit';
import { ApiError } from '../../common/api-error';
import { RequestContext } from '../../common/request-context';
import { CustomerDirectoryRepository, CustomerProfileRow } from '../repositories/customer-directory.repository';
import { ResetLinksService } from '../reset/reset-links.service';

export type StaffCustomer = CustomerProfileRow;

/**
 * The app's customers as its staff see them (README "Staff API: customers"): the list and search, one
 * customer's profile (the orders module adds their orders and tokens), and a password reset link mailed to
 * one, through the machinery of /customers/request-reset. Never a password hash or any other secret.
 */
@Injectable()
export class CustomerDirectoryService {
  constructor(
    private readonly customers: CustomerDirectoryRepository,
    private readonly resetLinks: ResetLinksService,
    private readonly audit: AuditService,
  ) {}

  list(ctx: RequestContext, query: { search?: string; offset: number; limit: number }): Promise<StaffCustomer[]> {
    return this.customers.list(ctx, query);
  }

  /** The app's customer `id`, or 404 `Customer not found` (also another app's). */
  async get(ctx: RequestContext, id: number): Promise<StaffCustomer> {
    const customer = await this.customers.find(ctx, id);
    if (!customer) throw ApiError.notFound('Customer not found');
    return customer;
  }

  /**
   * Mails the customer a password reset link (ResetLinksService.request, as /customers/request-reset does: its
   * rate limits, lifetime, mail and outbox), audited as `customer.reset_link` in the edge's transaction. A
   * customer without an email address, or an app that sends no mail, is 409: nothing would arrive.
   */
  async sendResetLink(ctx: RequestContext, id: number, url: string | undefined): Promise<{ customerId: number; email: string }> {
    const customer = await this.get(ctx, id);
    if (!customer.email) throw ApiError.conflict('The customer has no email address to send a reset link to');
    if (ctx.app.disable_email) throw ApiError.conflict('Email is disabled for this app: no reset link can be sent');
    await this.resetLinks.request(ctx, 'core_customers', customer.email, url, true);
    await this.audit.record(ctx, {
      action: 'customer.reset_link',
      table: 'core_customers',
      recordId: id,
      after: { email: customer.email },
    });
    return { customerId: id, email: customer.email };
  }
}
