import { ApiError } from '../common/api-error';
import { checkMergeQuery, MERGE_TABLES } from './sql-merge-source';

/** The refusal of `sql`: its field and message, or null when the query is accepted. */
function refusal(sql: string): { field: string; message: string } | null {
  try {
    checkMergeQuery(sql);
    return null;
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    expect([error.httpStatus, error.message, error.errors?.length]).toEqual([400, 'Validation error', 1]);
    return error.errors![0];
  }
}

const tablesOf = (sql: string) => [...checkMergeQuery(sql).tables].sort();

describe('checkMergeQuery: the allow-list of tenant SQL merge queries', () => {
  it.each([
    ['a plain SELECT of one table', 'SELECT email, firstname FROM core_customers WHERE id = 1', ['core_customers']],
    ['a query that names no table', `SELECT 'a@example.test' AS email, upper('cy') AS firstname`, []],
    [
      'joins, aliases and allowed functions',
      `SELECT lower(c.email) AS email, coalesce(o.total, 0) AS total FROM core_customers c LEFT JOIN core_orders o ON o.customer_id = c.id`,
      ['core_customers', 'core_orders'],
    ],
    ['aggregates and ORDER BY', 'SELECT count(*) AS n, max(created) AS latest FROM core_users ORDER BY 1 DESC LIMIT 1', ['core_users']],
    ['a subquery in FROM', 'SELECT x.email FROM (SELECT email FROM core_customers) x', ['core_customers']],
    [
      'UNION of two allowed tables',
      'SELECT email FROM core_customers UNION SELECT user_email FROM core_users',
      ['core_customers', 'core_users'],
    ],
    ['allowed casts', `SELECT id::text AS a, CAST(created AS date) AS b, '1'::int AS c FROM core_app_users`, ['core_app_users']],
    ['time keywords', 'SELECT current_date AS d, current_timestamp AS t', []],
    [
      'CASE, IN and BETWEEN',
      `SELECT CASE WHEN id IN (1, 2) THEN 'a' ELSE 'b' END AS x FROM core_folders WHERE id BETWEEN 1 AND 9`,
      ['core_folders'],
    ],
    [
      'comments and quoted identifiers',
      `SELECT /* c */ c.email AS "x"";DROP TABLE core_users;--" FROM core_customers AS c -- tail`,
      ['core_customers'],
    ],
  ])('accepts %s', (_name, sql, tables) => {
    expect(refusal(sql)).toBeNull();
    expect(tablesOf(sql)).toEqual(tables);
  });

  it('knows only the tables of MERGE_TABLES, each with its tenant column', () => {
    expect(Object.keys(MERGE_TABLES).sort()).toEqual(
      [
        'core_app_users',
        'core_customers',
        'core_folders',
        'core_order_items',
        'core_orders',
        'core_products',
        'core_related',
        'core_sites',
        'core_tokens',
        'core_users',
      ].sort(),
    );
    for (const [name, table] of Object.entries(MERGE_TABLES))
      expect([name, table.tenantColumn]).toEqual([name, name === 'core_sites' ? 'id' : 'app_id']);
  });

  it.each([
    ['text that does not parse', 'SELEKT 1', 'SQL could not be parsed; it must be a single SELECT statement'],
    ['two statements', 'SELECT 1; SELECT 2', 'SQL must be exactly one SELECT statement'],
    [
      'a statement hidden after a comment',
      'SELECT email FROM core_customers /* x */; DELETE FROM core_customers',
      'SQL must be exactly one SELECT statement',
    ],
    ['WITH', 'WITH x AS (SELECT 1) SELECT * FROM x', 'WITH is not allowed in SQL'],
    ['WITH in a subquery', 'SELECT * FROM (WITH x AS (SELECT 1) SELECT * FROM x) y', 'WITH is not allowed in SQL'],
    ['INSERT', `INSERT INTO core_customers (email) VALUES ('x')`, 'SQL must be a SELECT statement'],
    ['UPDATE', `UPDATE core_customers SET email = 'x'`, 'SQL must be a SELECT statement'],
    ['DELETE', 'DELETE FROM core_customers', 'SQL must be a SELECT statement'],
    ['DROP', 'DROP TABLE core_customers', 'SQL must be a SELECT statement'],
    ['a table outside the list', 'SELECT * FROM core_data', 'Table core_data is not available to SQL merge queries'],
    ['a catalog table', 'SELECT rolpassword FROM pg_authid', 'Table pg_authid is not available to SQL merge queries'],
    ['a schema-qualified table', 'SELECT * FROM public.core_customers', 'Schema-qualified table names are not allowed in SQL'],
    ['information_schema', 'SELECT * FROM information_schema.tables', 'Schema-qualified table names are not allowed in SQL'],
    [
      'a catalog table in a WHERE subquery',
      'SELECT email FROM core_customers WHERE id IN (SELECT 1 FROM pg_user)',
      'Table pg_user is not available to SQL merge queries',
    ],
    // The parser reads EXISTS (…) as a call of a function `exists`, which the list does not hold.
    ['EXISTS', 'SELECT email FROM core_customers WHERE EXISTS (SELECT 1 FROM core_users)', 'Function exists is not allowed in SQL'],
    [
      'a catalog table in DISTINCT ON',
      'SELECT DISTINCT ON ((SELECT 1 FROM pg_shadow)) email FROM core_customers',
      'Table pg_shadow is not available to SQL merge queries',
    ],
    [
      'a catalog table in a UNION',
      `SELECT email FROM core_customers UNION SELECT usename FROM pg_user`,
      'Table pg_user is not available to SQL merge queries',
    ],
    ['pg_sleep', 'SELECT pg_sleep(10)', 'Function pg_sleep is not allowed in SQL'],
    ['pg_read_file', `SELECT pg_read_file('/etc/passwd')`, 'Function pg_read_file is not allowed in SQL'],
    [
      'set_config in ORDER BY',
      `SELECT email FROM core_customers ORDER BY (SELECT set_config('a.b', 'c', false))`,
      'Function set_config is not allowed in SQL',
    ],
    ['current_setting', `SELECT current_setting('is_superuser')`, 'Function current_setting is not allowed in SQL'],
    ['a schema-qualified function', 'SELECT pg_catalog.lower(email) FROM core_customers', 'Function lower is not allowed in SQL'],
    ['a function in FROM', 'SELECT * FROM generate_series(1, 10)', 'Functions in FROM are not allowed in SQL'],
    ['a regclass cast', `SELECT 'core_data'::regclass`, 'This cast is not allowed in SQL'],
    ['an array cast', `SELECT '{a}'::text[] AS email`, 'This cast is not allowed in SQL'],
    ['current_user', 'SELECT current_user AS email', 'current_user is not allowed in SQL'],
    ['a bind parameter', 'SELECT email FROM core_customers WHERE id = $1', 'Bind parameters are not allowed in SQL'],
    ['FOR UPDATE', 'SELECT email FROM core_customers FOR UPDATE', 'Locking clauses are not allowed in SQL'],
    [
      'a schema-qualified operator',
      `SELECT email OPERATOR(pg_catalog.||) 'x' FROM core_customers`,
      'Schema-qualified operators are not allowed in SQL',
    ],
  ])('refuses %s', (_name, sql, message) => {
    expect(refusal(sql)).toEqual({ field: 'SQL', message });
  });

  it.each([
    ['SELECT INTO', 'SELECT email INTO stolen FROM core_customers'],
    ['a schema-qualified column', 'SELECT public.core_customers.email FROM core_customers'],
    ['a very deep expression', `SELECT 1 ${'+1'.repeat(3000)} AS n`],
    ['deeply nested subqueries', `${'SELECT * FROM ('.repeat(150)}SELECT 1${') x'.repeat(150)}`],
  ])('refuses %s, naming the SQL field', (_name, sql) => {
    expect(refusal(sql)).toMatchObject({ field: 'SQL' });
  });
});
