import { Allow, getMetadataStorage, IsInt, IsString, validate } from 'class-validator';
import { createValidationPipe, memoizeTargetValidationMetadatas } from './validation.pipe';

class Base {
  @IsString()
  name!: string;
}

class Child extends Base {
  @IsInt()
  count!: number;

  @IsInt({ groups: ['strict'] })
  limit!: number;
}

/** The memo over class-validator's rule lookup (validation.pipe.ts) answers what the lookup answers. */
describe('memoizeTargetValidationMetadatas', () => {
  const storage = getMetadataStorage();
  const original = storage.getTargetValidationMetadatas;
  const fresh = (groups?: string[]) =>
    original.call(storage, Child, '', false, false, groups).map((m) => `${m.propertyName}:${m.name ?? m.type}`);

  beforeAll(() => memoizeTargetValidationMetadatas());

  it('keeps one answer per class and arguments, equal to a fresh lookup, inherited rules included', () => {
    const first = storage.getTargetValidationMetadatas(Child, '', false, false);
    expect(storage.getTargetValidationMetadatas(Child, '', false, false)).toBe(first);
    expect(first.map((m) => `${m.propertyName}:${m.name ?? m.type}`)).toEqual(fresh());
    expect(first.map((m) => m.propertyName)).toEqual(expect.arrayContaining(['name', 'count']));
    const strict = storage.getTargetValidationMetadatas(Child, '', false, false, ['strict']);
    expect(strict).not.toBe(first);
    expect(strict.map((m) => `${m.propertyName}:${m.name ?? m.type}`)).toEqual(fresh(['strict']));
  });

  it('wraps the lookup once, however often the pipe is created', () => {
    const memo = storage.getTargetValidationMetadatas;
    memoizeTargetValidationMetadatas();
    expect(storage.getTargetValidationMetadatas).toBe(memo);
  });

  it('validates as before: own, inherited and grouped rules', async () => {
    const child = Object.assign(new Child(), { name: 7, count: 'x', limit: 'y' });
    // No groups asked: every rule applies (class-validator's rule).
    expect((await validate(child)).map((e) => e.property).sort()).toEqual(['count', 'limit', 'name']);
    expect((await validate(child, { groups: ['strict'] })).map((e) => e.property)).toEqual(['limit']);
  });
});

class OnlyAllowed {
  @Allow() table!: string;
  @Allow() page?: number;
}

class MixedRules {
  @Allow() note?: string;
  @IsInt({ message: 'count must be an integer' }) count!: number;
}

/** The pipe skips class-validator for a class whose every rule is @Allow(): the same instance, keys and errors (none). */
describe('the validation pipe on @Allow()-only classes', () => {
  const pipe = createValidationPipe();
  const body = (metatype: new () => object) => ({ type: 'body' as const, metatype });

  it('answers an instance of the class with only its declared keys', async () => {
    const out = await pipe.transform({ table: 'core_products', page: 'x', extra: 1 }, body(OnlyAllowed));
    expect(out).toBeInstanceOf(OnlyAllowed);
    expect({ ...(out as object) }).toEqual({ table: 'core_products', page: 'x' });
  });

  it('still runs every other rule of a class that also has @Allow()', async () => {
    await expect(pipe.transform({ note: 'n', count: 'x' }, body(MixedRules))).rejects.toMatchObject({
      errors: [{ field: 'count', message: 'count must be an integer' }],
    });
    expect(await pipe.transform({ note: 'n', count: 2 }, body(MixedRules))).toBeInstanceOf(MixedRules);
  });
});
