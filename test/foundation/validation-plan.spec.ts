import { ArgumentMetadata, ValidationPipe } from '@nestjs/common';
import { getMetadataStorage, validateSync } from 'class-validator';
import '../../src/app.module'; // every controller, so every request DTO of the app
import { ApiError } from '../../src/common/api-error';
import { createValidationPipe, VALIDATION_PIPE_OPTIONS } from '../../src/common/validation.pipe';
import { planned } from '../../src/common/validation-plan';
import { prng } from '../support/prng';

type Dto = new () => object;

/** Values a JSON body can hold: each field of each DTO gets the ones its own rules take, and now and then any other. */
const CANDIDATES: unknown[] = [
  null,
  '',
  'a',
  'Ab3',
  'x'.repeat(101),
  'x'.repeat(400),
  'a\u0000b',
  'user@example.com',
  'not-an-email',
  '2026-01-01',
  '2026-01-01T10:00:00.000Z',
  '+15551234567',
  'https://example.com',
  'Published',
  'asc',
  '9f2c',
  'true',
  '12',
  0,
  1,
  7,
  -1,
  1.5,
  2147483647,
  2147483648,
  1e21,
  true,
  false,
  [],
  ['a'],
  [1, 2],
  {},
  { a: 1 },
];
const ROUNDS = 150;

const dtos = [...(getMetadataStorage() as unknown as { validationMetadatas: Map<unknown, unknown> }).validationMetadatas.keys()].filter(
  (target): target is Dto => typeof target === 'function',
);

/** Nest's own pipe with our options: the reference the plan must agree with. */
const reference = new ValidationPipe(VALIDATION_PIPE_OPTIONS);
const pipe = createValidationPipe();

async function outcome(run: () => Promise<unknown>): Promise<{ value?: unknown; error?: unknown }> {
  try {
    return { value: await run() };
  } catch (error) {
    return { error: error instanceof ApiError ? { status: error.httpStatus, ...error.toBody() } : String(error) };
  }
}

describe('validation plans (src/common/validation-plan.ts) against the full pipe', () => {
  it('covers the request DTOs of the app', () => {
    expect(dtos.length).toBeGreaterThan(40);
  });

  it('answers as Nest’s ValidationPipe does for every DTO: the same instance, or the same errors', async () => {
    const next = prng(20261128); // seeded: a failure repeats
    let taken = 0;
    const withPlan = new Set<Dto>();
    for (const dto of dtos) {
      const fields = Object.keys(
        getMetadataStorage().groupByPropertyName(getMetadataStorage().getTargetValidationMetadatas(dto, '', false, false)),
      );
      // The values each field's rules take on their own.
      const fitting = new Map(
        fields.map((field) => [
          field,
          CANDIDATES.filter((value) => {
            const probe = Object.assign(new dto(), { [field]: value });
            return !validateSync(probe, { stopAtFirstError: true, forbidUnknownValues: false }).some((e) => e.property === field);
          }),
        ]),
      );
      for (let round = 0; round < ROUNDS; round++) {
        const body: Record<string, unknown> = {};
        for (const field of fields) {
          const pick = next();
          if (pick < 0.1) continue; // absent
          const pool = pick < 0.85 && fitting.get(field)!.length ? fitting.get(field)! : CANDIDATES;
          body[field] = pool[Math.floor(next() * pool.length)];
        }
        const metadata: ArgumentMetadata = { type: 'body', metatype: dto };
        const ours = await outcome(() => pipe.transform(structuredClone(body), metadata));
        const theirs = await outcome(() => reference.transform(structuredClone(body), metadata));
        expect({ dto: dto.name, body, ...ours }).toStrictEqual({ dto: dto.name, body, ...theirs });
        if (ours.value !== undefined) expect(Object.getPrototypeOf(ours.value)).toBe(dto.prototype);
        if (planned(structuredClone(body), dto)) {
          taken++;
          withPlan.add(dto);
        }
      }
    }
    // The plan must have been exercised, not only passed over: most DTOs are flat.
    expect(withPlan.size).toBeGreaterThan(dtos.length / 2);
    expect(taken).toBeGreaterThan(1000);
  });

  it('leaves to the full pipe a body with an object or an array, and one that fails a check', () => {
    class Probe {}
    const validateToken = dtos.find((dto) => dto.name === 'ValidateTokenRequest')!;
    expect(planned({ tokenValue: 'a', productId: 1 }, validateToken)).toBeInstanceOf(validateToken);
    expect(planned({ tokenValue: 'a', productId: [1] }, validateToken)).toBeUndefined();
    expect(planned({ tokenValue: 'a', productId: 0 }, validateToken)).toBeUndefined();
    expect(planned({ tokenValue: null, productId: 3 }, validateToken)).toEqual(
      Object.assign(new validateToken(), { tokenValue: undefined, productId: 3 }),
    );
    expect(planned({ a: 1 }, Probe)).toBeUndefined(); // no rules: no plan
  });
});
