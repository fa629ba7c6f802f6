import { authError } from '../auth.errors';

export interface PasswordRequirements {
  minLength: boolean;
  hasUpperCase: boolean;
  hasLowerCase: boolean;
  hasNumber: boolean;
  hasSpecialChar: boolean;
}

export const PASSWORD_MIN_LENGTH = 8;

/** The five checks of the password strength rule: 8+ characters, an upper, a lower, a digit, one of @$!%*?&. */
export function passwordRequirements(password: string): PasswordRequirements {
  return {
    minLength: password.length >= PASSWORD_MIN_LENGTH,
    hasUpperCase: /[A-Z]/.test(password),
    hasLowerCase: /[a-z]/.test(password),
    hasNumber: /\d/.test(password),
    hasSpecialChar: /[@$!%*?&]/.test(password),
  };
}

/** Throws the contract's 400 `Password does not meet security requirements` with the five booleans. */
export function assertStrongPassword(password: string): void {
  const requirements = passwordRequirements(password);
  if (!Object.values(requirements).every(Boolean)) {
    throw authError('WEAK_PASSWORD', { body: { requirements } });
  }
}
