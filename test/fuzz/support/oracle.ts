import { Client } from 'pg';
import { Operation } from './openapi';
import { FuzzRequest } from './arbitraries';

/**
 * What every answer must satisfy, and the evidence that a refused request wrote nothing: a fingerprint of
 * every table of the service (row count and the newest row version's transaction id, xmin) read from a
 * session of our own before and after each request. An insert, update or delete that committed changes it;
 * one that was rolled back does not. Requests run one at a time and the background jobs are off, so a
 * change between two readings is the request's.
 */
export class RowFingerprint {
  private constructor(
    private readonly client: Client,
    private readonly sql: string,
    readonly tables: string[],
  ) {}

  static async open(url: string): Promise<RowFingerprint> {
    const client = new Client({ connectionString: url });
    await client.connect();
    const tables: string[] = (
      await client.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`)
    ).rows.map((r: { tablename: string }) => r.tablename);
    // Raw SQL: one statement over every table, whatever tables the migrations created.
    const sql = tables
      .map((table) => `SELECT '${table}' AS t, count(*)::text || ':' || coalesce(max(xmin::text::bigint), 0)::text AS f FROM "${table}"`)
      .join(' UNION ALL ');
    return new RowFingerprint(client, sql, tables);
  }

  async take(): Promise<Map<string, string>> {
    const { rows } = await this.client.query<{ t: string; f: string }>(this.sql);
    return new Map(rows.map((r) => [r.t, r.f]));
  }

  /** Tables whose fingerprint differs, e.g. `core_orders 3:1201 → 4:1207`. */
  static changed(before: Map<string, string>, after: Map<string, string>): string[] {
    return [...after].filter(([table, f]) => before.get(table) !== f).map(([table, f]) => `${table} ${before.get(table)} → ${f}`);
  }

  close(): Promise<void> {
    return this.client.end();
  }
}

export interface Answer {
  status: number;
  headers: Record<string, unknown>;
  body: string;
}

/** Text that only an internal error puts in an answer: a stack frame, a source path, SQL or a PostgreSQL message. */
const LEAKS: (string | RegExp)[] = [
  '    at ',
  '.ts:',
  '.js:',
  'node_modules',
  'dist/src',
  process.cwd(),
  'SELECT ',
  'INSERT ',
  'UPDATE ',
  'DELETE FROM',
  ' FROM "',
  'syntax error at',
  'relation "',
  /column "[^"]*" (does not exist|of relation)/,
  'invalid input syntax',
  'violates ',
  'duplicate key',
  'invalid byte sequence',
  'out of range for type',
  'QueryFailedError',
  'TypeError',
  'ReferenceError',
  'RangeError',
  'SyntaxError',
  'Cannot read properties',
  'is not a function',
  'undefined is not',
  'ECONNREFUSED',
  'EntityMetadataNotFound',
  'class-transformer',
  'class-validator',
];

/** The problems with one answer (empty when it is fine). */
export function answerProblems(op: Operation, request: FuzzRequest, answer: Answer): string[] {
  const problems: string[] = [];
  const { status } = answer;
  // The documented 5xx of an operation (the payment provider's 502, the IdP's 503) are answers; 500 never is.
  if (status >= 500 && (status === 500 || !op.documented.has(status))) problems.push(`status ${status}`);
  const requestText = `${request.url}\n${JSON.stringify(request.headers)}\n${request.payload?.toString('utf8') ?? ''}`;
  for (const leak of LEAKS) {
    const found = (text: string) => (typeof leak === 'string' ? text.includes(leak) : leak.test(text));
    if (found(answer.body) && !found(requestText)) problems.push(`answer contains ${String(leak)}`);
  }
  if (status >= 400) {
    let body: unknown;
    try {
      body = JSON.parse(answer.body);
    } catch {
      body = undefined;
    }
    const envelope = body as { status?: unknown; message?: unknown } | undefined;
    if (!envelope || (envelope.status !== 'Failed' && envelope.status !== 'Error') || typeof envelope.message !== 'string') {
      problems.push('a 4xx/5xx answer outside the failure envelope');
    }
  }
  return problems;
}
