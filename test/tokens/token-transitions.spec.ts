import { fromStatuses, isTokenStatus, statusAfter, TOKEN_STATUSES, TOKEN_TRANSITIONS, TokenTrigger } from '../../src/tokens/token-transitions';

/**
 * The token status table of SPEC "Token status", trigger by trigger and status by status: which statuses a
 * trigger changes and into what (null: the trigger does not apply, the conditional UPDATE matches nothing).
 */
function outcomes(trigger: TokenTrigger): Record<string, string | null> {
  return Object.fromEntries(TOKEN_STATUSES.map((status) => [status, statusAfter(trigger, status)]));
}

describe('token transitions', () => {
  it('has the four statuses of the spec', () => {
    expect(TOKEN_STATUSES).toEqual(['pending', 'gift_pending', 'active', 'expired']);
    expect(isTokenStatus('active')).toBe(true);
    expect(isTokenStatus('Active')).toBe(false);
    expect(isTokenStatus(undefined)).toBe(false);
  });

  it('issuance creates pending tokens (the template may say active) and gift_pending gift tokens', () => {
    expect(TOKEN_TRANSITIONS.issue).toMatchObject({ from: [], to: 'pending' });
    expect(TOKEN_TRANSITIONS.issueGift).toMatchObject({ from: [], to: 'gift_pending' });
    expect(outcomes('issue')).toEqual({ pending: null, gift_pending: null, active: null, expired: null });
    expect(outcomes('issueGift')).toEqual({ pending: null, gift_pending: null, active: null, expired: null });
  });

  it('activateToken: pending and active become active; gift_pending and expired are refused', () => {
    expect(outcomes('activate')).toEqual({ pending: 'active', gift_pending: null, active: 'active', expired: null });
    expect(fromStatuses('activate')).toEqual(['pending', 'active']);
  });

  it('a passed expiry date turns pending and active tokens expired (validateToken, activateToken)', () => {
    expect(outcomes('reachExpiry')).toEqual({ pending: 'expired', gift_pending: null, active: 'expired', expired: null });
  });

  it('expireToken: any status becomes expired', () => {
    expect(outcomes('expire')).toEqual({ pending: 'expired', gift_pending: 'expired', active: 'expired', expired: 'expired' });
  });

  it('extendToken: expired becomes active; other statuses keep theirs (only the expiry moves)', () => {
    expect(outcomes('extend')).toEqual({ pending: null, gift_pending: null, active: null, expired: 'active' });
  });

  it('redeemToken: only gift_pending becomes active', () => {
    expect(outcomes('redeem')).toEqual({ pending: null, gift_pending: 'active', active: null, expired: null });
  });

  it('fromStatuses returns a copy the caller may not use to change the table', () => {
    const from = fromStatuses('redeem');
    from.push('active');
    expect(TOKEN_TRANSITIONS.redeem.from).toEqual(['gift_pending']);
  });
});
