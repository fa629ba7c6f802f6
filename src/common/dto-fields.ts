import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional, ApiPropertyOptions } from '@nestjs/swagger';
import { IsEmail, IsInt, IsNotEmpty, IsOptional, IsString, MaxLength, Min } from 'class-validator';

/*
 * Field decorators for request DTOs, with the house's messages. class-validator checks a property's rules in
 * the order they are registered and the pipe stops at the first failure, so each stack registers presence
 * first, then the type, then the finer rules: a missing field answers `<field> is required`, a wrong type
 * `<field> must be a string` (or an integer), and only then length or format.
 */

interface FieldOptions {
  required?: boolean;
  doc?: ApiPropertyOptions;
}

function presence(name: string, options: FieldOptions): PropertyDecorator[] {
  return options.required
    ? [ApiProperty(options.doc ?? {}), IsNotEmpty({ message: `${name} is required` })]
    : [ApiPropertyOptional(options.doc ?? {}), IsOptional()];
}

/** A string of at most `max` characters. */
export function TextField(name: string, max: number, options: FieldOptions = {}): PropertyDecorator {
  return applyDecorators(
    ...presence(name, options),
    IsString({ message: `${name} must be a string` }),
    MaxLength(max, { message: `${name} must be at most ${max} characters` }),
  );
}

/** An email address (at most 320 characters). */
export function EmailField(name = 'email', options: FieldOptions = { required: true }): PropertyDecorator {
  return applyDecorators(TextField(name, 320, options), IsEmail({}, { message: `${name} must be a valid email address` }));
}

/** A positive integer id. */
export function IdField(name: string, options: FieldOptions = {}): PropertyDecorator {
  return applyDecorators(
    ...presence(name, options),
    IsInt({ message: `${name} must be an integer` }),
    Min(1, { message: `${name} must be a positive integer` }),
  );
}
