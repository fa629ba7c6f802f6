import { INTERCEPTORS_METADATA, METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModulesContainer } from '@nestjs/core';
import { getMetadataStorage } from 'class-validator';
import { DecryptIdsInterceptor } from '../../src/common/decrypt-ids.interceptor';
import { startTestApp, TestApp } from '../support/test-app';

type Constructor = new (...args: unknown[]) => unknown;

const firstPath = (path: string | string[]) => (Array.isArray(path) ? path[0] : path).replace(/^\/+|\/+$/g, '');

/**
 * The fields of a body DTO that may carry encrypted ids: the `_` fields it declares, its free-form objects
 * (typed `Record`/`object`, whose `_` keys are ids too), and such fields of its nested DTOs, as dotted paths.
 */
function idFields(type: Constructor, depth = 0): string[] {
  const out = new Set<string>();
  for (const rule of getMetadataStorage().getTargetValidationMetadatas(type, '', false, false)) {
    const name = rule.propertyName;
    if (name.startsWith('_')) out.add(name);
    if (rule.name !== 'isObject' && rule.type !== 'nestedValidation') continue;
    const declared: unknown = Reflect.getMetadata('design:type', type.prototype, name);
    if (declared === Object) out.add(name);
    else if (typeof declared === 'function' && declared !== Array && depth < 5)
      for (const inner of idFields(declared as Constructor, depth + 1)) out.add(`${name}.${inner}`);
  }
  return [...out];
}

/** Every route of the running application with its body's idFields, and whether DecryptIdsInterceptor is bound to it. */
function routes(t: TestApp): { route: string; idFields: string[]; decrypts: boolean }[] {
  const out = [];
  for (const module of t.app.get(ModulesContainer).values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as Constructor;
      const onClass: unknown[] = Reflect.getMetadata(INTERCEPTORS_METADATA, controller) ?? [];
      for (const name of Object.getOwnPropertyNames(controller.prototype)) {
        const handler = controller.prototype[name as keyof object] as object;
        if (name === 'constructor' || Reflect.getMetadata(METHOD_METADATA, handler) === undefined) continue;
        const args: Record<string, { index: number }> = Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {};
        const bodyArg = Object.entries(args).find(([key]) => key.startsWith(`${RouteParamtypes.BODY}:`));
        const bodyType: Constructor | undefined =
          bodyArg && Reflect.getMetadata('design:paramtypes', controller.prototype, name)[bodyArg[1].index];
        const onHandler: unknown[] = Reflect.getMetadata(INTERCEPTORS_METADATA, handler) ?? [];
        out.push({
          route: [Reflect.getMetadata(PATH_METADATA, controller), Reflect.getMetadata(PATH_METADATA, handler)]
            .map(firstPath)
            .filter(Boolean)
            .join('/'),
          idFields: bodyType ? idFields(bodyType) : [],
          decrypts: [...onClass, ...onHandler].includes(DecryptIdsInterceptor),
        });
      }
    }
  }
  return out;
}

/** @DecryptIds() is bound per controller, not globally: no route that takes an encrypted id may lack it. */
describe('Routes that take encrypted ids', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('all decrypt them, and the light routes do not pay for it', () => {
    const all = routes(t);
    const taking = all.filter((r) => r.idFields.length > 0);
    expect(taking.map((r) => r.route)).toEqual(
      expect.arrayContaining([
        'ecommerce/checkout',
        'ecommerce/addCart',
        'ecommerce/getOrder',
        'content/edit',
        'content/rollback',
        'message/notification',
      ]),
    );
    expect(taking.filter((r) => !r.decrypts)).toEqual([]);
    const light = all.filter((r) =>
      ['getApp', 'getDataRows', 'ecommerce/validateToken', 'auth/login'].some((path) => r.route.endsWith(path)),
    );
    expect(light.length).toBeGreaterThanOrEqual(4);
    expect(light.filter((r) => r.decrypts)).toEqual([]);
  });
});
