import { compare, getRounds } from 'bcrypt';
import { throwawayHash } from './password-hasher.service';

/** The hash an unknown account is verified against (PasswordHasherService.spendVerifyTime), made without hashing. */
describe('throwawayHash', () => {
  it('is a bcrypt hash the native library runs at the given cost, and that no password matches', async () => {
    for (const cost of [4, 10, 12]) {
      const hash = throwawayHash(cost);
      expect(hash).toMatch(new RegExp(`^\\$2b\\$${String(cost).padStart(2, '0')}\\$[./A-Za-z0-9]{53}$`));
      expect(getRounds(hash)).toBe(cost);
    }
    const hash = throwawayHash(4);
    await expect(compare('', hash)).resolves.toBe(false);
    await expect(compare('dummy-password-for-timing', hash)).resolves.toBe(false);
  });

  it('differs per process start, so its salt cannot be precomputed against', () => {
    expect(throwawayHash(10)).not.toBe(throwawayHash(10));
  });
});
