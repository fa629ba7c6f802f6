import { QueryFailedError } from 'typeorm';
import { isDatabaseUnavailable } from './connection-errors';

describe('isDatabaseUnavailable', () => {
  const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

  it('knows a database that cannot be reached or went away', () => {
    expect(isDatabaseUnavailable(withCode('ECONNREFUSED'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('57P01', 'terminating connection due to administrator command'))).toBe(true);
    expect(isDatabaseUnavailable(withCode('08006'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
    expect(isDatabaseUnavailable(new QueryFailedError('SELECT 1', [], withCode('ECONNRESET')))).toBe(true);
  });

  it('leaves statement errors and anything else alone', () => {
    expect(isDatabaseUnavailable(new QueryFailedError('INSERT', [], withCode('23505', 'duplicate key value')))).toBe(false);
    expect(isDatabaseUnavailable(withCode('40001', 'could not serialize access'))).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable(null)).toBe(false);
    expect(isDatabaseUnavailable('ECONNREFUSED')).toBe(false);
  });
});
