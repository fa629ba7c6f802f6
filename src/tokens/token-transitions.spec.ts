import { fromStatuses, isTokenStatus, statusAfter, TOKEN_STATUSES, TOKEN_TRANSITIONS, TokenTrigger } from './token-transitions';

/**
 * The token status table (README "Digital access tokens"), trigger by trigger and status by status: which statuses a
 * trigger changes and into what (null: the trigger does not apply, the conditional UPDATE matches nothing),
 * for a token that is not an unredeemed gift, or (`unredeemedGift`) for a gift nobody redeemed yet.
 */
function outcomes(trigger: TokenTrigger, unredeemedGift = false): Record<string, string | null> {
  return Object.fromEntries(TOKEN_STATUSES.map((status) => [status, statusAfter(trigger, status, unredeemedGift)]));
}

/** What `trigger` does to each status, for every token (the same for unredeemed gifts and the others). */
function sameForGifts(trigger: TokenTrigger): Record<string, string | null> {
  expect(outcomes(trigger, true)).toEqual(outcomes(trigger, false));
  return outcomes(trigger);
}

describe('token transitions', () => {
  it('has the four token statuses', () => {
    expect(TOKEN_STATUSES).toEqual(['pending', 'gift_pending', 'active', 'expired']);
    expect(isTokenStatus('active')).toBe(true);
    expect(isTokenStatus('Active')).toBe(false);
    expect(isTokenStatus(undefined)).toBe(false);
  });

  it('issuance creates pending tokens (the template may say active) and gift_pending gift tokens', () => {
    expect(TOKEN_TRANSITIONS.issue).toMatchObject({ from: [], to: 'pending' });
    expect(TOKEN_TRANSITIONS.issueGift).toMatchObject({ from: [], to: 'gift_pending' });
    expect(sameForGifts('issue')).toEqual({ pending: null, gift_pending: null, active: null, expired: null });
    expect(sameForGifts('issueGift')).toEqual({ pending: null, gift_pending: null, active: null, expired: null });
  });

  it('activateToken: pending and active become active; gift_pending and expired are refused', () => {
    expect(sameForGifts('activate')).toEqual({ pending: 'active', gift_pending: null, active: 'active', expired: null });
    expect(fromStatuses('activate')).toEqual(['pending', 'active']);
  });

  it('a passed expiry date turns pending and active tokens expired (validateToken, activateToken)', () => {
    expect(sameForGifts('reachExpiry')).toEqual({ pending: 'expired', gift_pending: null, active: 'expired', expired: null });
  });

  it('expireToken: any status becomes expired', () => {
    expect(sameForGifts('expire')).toEqual({ pending: 'expired', gift_pending: 'expired', active: 'expired', expired: 'expired' });
  });

  it('extendToken: expired becomes active; other statuses keep theirs (only the expiry moves)', () => {
    expect(outcomes('extend')).toEqual({ pending: null, gift_pending: null, active: null, expired: 'active' });
    expect(outcomes('extendGift')).toEqual({ pending: null, gift_pending: null, active: null, expired: null });
  });

  it('extendToken: an expired gift nobody redeemed stays a gift (gift_pending, to be redeemed), never an ownerless active token', () => {
    expect(outcomes('extendGift', true)).toEqual({ pending: null, gift_pending: null, active: null, expired: 'gift_pending' });
    expect(outcomes('extend', true)).toEqual({ pending: null, gift_pending: null, active: null, expired: null });
  });

  it('redeemToken: only gift_pending becomes active', () => {
    expect(sameForGifts('redeem')).toEqual({ pending: null, gift_pending: 'active', active: null, expired: null });
  });

  it('restore (a refund in full failed at the provider): only expired tokens change, to the status they had (the table says active)', () => {
    expect(sameForGifts('restore')).toEqual({ pending: null, gift_pending: null, active: null, expired: 'active' });
  });

  it('fromStatuses returns a copy the caller may not use to change the table', () => {
    const from = fromStatuses('redeem');
    from.push('active');
    expect(TOKEN_TRANSITIONS.redeem.from).toEqual(['gift_pending']);
  });
});
