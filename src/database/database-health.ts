import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Whether the database answers: the readiness probe (GET /health/ready) asks it. */
@Injectable()
export class DatabaseHealth {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Resolves once the database has answered one statement on the request pool; rejects when it cannot. */
  async ping(): Promise<void> {
    // Raw SQL: a readiness ping, no table involved.
    await this.dataSource.query('SELECT 1');
  }
}
