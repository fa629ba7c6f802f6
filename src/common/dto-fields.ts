import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsByteLength, IsEmail, IsInt, IsNotEmpty, IsOptional, IsString, Matches, Max, MaxLength, Min, MinLength } from 'class-validator';
import { MAX_ID } from './id-cipher.service';

/*
 * Field decorators for request DTOs, with the house's messages. class-validator checks a property's rules in
 * the order they are registered and the pipe stops at the first failure, so each stack registers presence
 * first, then the type, then the finer rules: a missing field answers `<field> is required`, a wrong type
 * `<field> must be a string` (or an integer), and only then length or format.
 *
 * The bounds every field of a kind needs live here, once: text never holds U+0000 (PostgreSQL text cannot
 * store it), ids fit PostgreSQL's `integer`, and `null` for an optional field means the field is absent.
 * (Unpaired surrogates are refused in every body string by the validation pipe, before any rule runs.)
 */

interface FieldOptions {
  required?: boolean;
  doc?: ApiPropertyOptions;
}

const NO_NUL = /^[^\u0000]*$/;
function presence(name: string, options: FieldOptions): PropertyDecorator[] {
  return options.required
    ? [ApiProperty(options.doc ?? {}), IsNotEmpty({ message: `${name} is required` })]
    : [ApiPropertyOptional(options.doc ?? {}), Transform(({ value }) => (value === null ? undefined : value)), IsOptional()];
}

/** A string of at most `max` characters, without NUL characters. */
export function TextField(name: string, max: number, options: FieldOptions = {}): PropertyDecorator {
  return applyDecorators(
    ...presence(name, options),
    IsString({ message: `${name} must be a string` }),
    MaxLength(max, { message: `${name} must be at most ${max} characters` }),
    Matches(NO_NUL, { message: `${name} must not contain NUL characters` }),
  );
}

/** An email address (at most 320 characters). */
export function EmailField(name = 'email', options: FieldOptions = { required: true }): PropertyDecorator {
  return applyDecorators(TextField(name, 320, options), IsEmail({}, { message: `${name} must be a valid email address` }));
}

/** bcrypt reads at most 72 bytes of a password: a longer one would match any password sharing its first 72 bytes. */
export const PASSWORD_MAX_BYTES = 72;

/** A password: a string of at most 72 bytes in UTF-8 (and at least `minLength` characters, when given). */
export function PasswordField(name: string, options: FieldOptions & { minLength?: number } = { required: true }): PropertyDecorator {
  return applyDecorators(
    ...presence(name, options),
    IsString({ message: `${name} must be a string` }),
    ...(options.minLength ? [MinLength(options.minLength, { message: `${name} must be at least ${options.minLength} characters` })] : []),
    IsByteLength(0, PASSWORD_MAX_BYTES, { message: `${name} must be at most ${PASSWORD_MAX_BYTES} bytes in UTF-8` }),
    Matches(NO_NUL, { message: `${name} must not contain NUL characters` }),
  );
}

/** A positive integer id that fits PostgreSQL's `integer` (ids beyond it could never name a row). */
export function IdField(name: string, options: FieldOptions = {}): PropertyDecorator {
  return applyDecorators(
    ...presence(name, options),
    IsInt({ message: `${name} must be an integer` }),
    Min(1, { message: `${name} must be a positive integer` }),
    Max(MAX_ID, { message: `${name} must be at most ${MAX_ID}` }),
  );
}
