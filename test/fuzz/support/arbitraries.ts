import fc, { Arbitrary } from 'fast-check';
import { OpenApi, Operation, Parameter, Schema } from './openapi';

/**
 * Requests for one operation of the OpenAPI document: a body built from its DTO's schema (valid-looking
 * values, real ids and tokens where the property names one) and then broken the ways clients and attackers
 * break it, plus path parameters, query strings and headers.
 */

/** Real values by property, path parameter or query name (ids, tokens, emails of the seeded tenant), the one that works first. */
export type Known = Record<string, unknown[]>;

export interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[]>;
  payload?: Buffer;
  /** What was done to the request, for the failure report. */
  what: string[];
}

/** The header sets requests start from (site-id, a bearer) and the garbage that replaces them. */
export interface Identity {
  headers: Record<string, string>;
  siteIds: string[];
  authorizations: string[];
}

const MARK = 'ZZ_FUZZ_MARK_ZZ';

/** Strings that have broken services before: SQL and template syntax, encodings, numbers as text, names of tables and keys. */
const NASTY_STRINGS = [
  '',
  ' ',
  '\t',
  'null',
  'undefined',
  'true',
  '0',
  '-1',
  '1e309',
  'NaN',
  'Infinity',
  '-0',
  '9007199254740993',
  '0x10',
  '1,5',
  "' OR '1'='1",
  '1; DROP TABLE core_users--',
  '"; --',
  "\\'",
  '%',
  '_',
  '\\',
  '$1',
  '?',
  ':id',
  '*',
  'a,b',
  'title,price',
  'id DESC',
  '../../etc/passwd',
  '<script>alert(1)</script>',
  '{{7*7}}',
  '${7*7}',
  '[firstname]',
  '[[x]]',
  '#{x}',
  '\u0000',
  'a\u0000b',
  '\ud800',
  '\udfff',
  'x\udbff',
  '\uffff',
  '\ufeff',
  '\u202e',
  '🙂',
  'ǅİß',
  '\u00ad',
  'e\u0301',
  'core_users',
  'core_sites',
  'pg_catalog.pg_user',
  'information_schema.tables',
  'password',
  'meta_status',
  'app_id',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '2026-01-01T00:00:00Z',
  '2026-13-45T99:99:99Z',
  '0000-00-00',
  '+275760-09-13T00:00:00.001Z',
  '1970-01-01',
  'a@b',
  'a@b.c',
  '@',
  'x@example.test',
  'A'.repeat(300),
  'http://localhost/',
  'javascript:alert(1)',
  '//evil.test',
];

export const stringArb: Arbitrary<string> = fc.oneof(
  { arbitrary: fc.string({ maxLength: 24 }), weight: 4 },
  { arbitrary: fc.string({ unit: 'binary', maxLength: 16 }), weight: 2 },
  { arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 16 }), weight: 1 },
  { arbitrary: fc.constantFrom(...NASTY_STRINGS), weight: 4 },
  { arbitrary: fc.emailAddress(), weight: 1 },
  {
    arbitrary: fc.array(fc.constantFrom('\ud800', '\udc00', 'a', '\u0000'), { minLength: 1, maxLength: 6 }).map((parts) => parts.join('')),
    weight: 1,
  },
);

export const numberArb: Arbitrary<number> = fc.oneof(
  { arbitrary: fc.integer({ min: -3, max: 300 }), weight: 4 },
  { arbitrary: fc.integer(), weight: 2 },
  {
    arbitrary: fc.constantFrom(
      0,
      -1,
      0.5,
      1.5,
      2 ** 31 - 1,
      2 ** 31,
      2 ** 32,
      2 ** 53,
      2 ** 53 + 2,
      1e21,
      1e308,
      -1e308,
      5e-324,
      36500,
      36501,
      1000,
      1001,
      99999999,
      100000000,
    ),
    weight: 3,
  },
  { arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }), weight: 1 },
);

/** Any JSON value, of any type: what replaces a field's value when its type is wrong. */
const anyJson: Arbitrary<unknown> = fc.oneof(
  stringArb,
  numberArb,
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom([], {}, [null], [[]], { '': '' }, ['x', 1], { a: { b: { c: 1 } } }),
  fc.jsonValue({ maxDepth: 3 }),
);

export class RequestArbitraries {
  constructor(
    private readonly api: OpenApi,
    private readonly known: Known,
  ) {}

  /**
   * Requests for `op` starting from `identity`'s headers. Most break one part (the body, the headers, a path
   * parameter, the query or the content type) and keep the others as a client sends them, so that a broken
   * part is met by the code behind the checks that the others pass; some break everything at once.
   */
  requests(op: Operation, identity: Identity): Arbitrary<FuzzRequest> {
    const hasPath = op.parameters.some((p) => p.in === 'path');
    const weights: [Focus, number][] = [
      ['body', op.body || op.method !== 'GET' ? 8 : 1],
      ['headers', 3],
      ['path', hasPath ? 4 : 0],
      ['query', op.method === 'GET' ? 4 : 1],
      ['content-type', op.method === 'GET' ? 0 : 1],
      ['all', 2],
    ];
    const focus = fc.oneof(...weights.filter(([, weight]) => weight > 0).map(([f, weight]) => ({ arbitrary: fc.constant(f), weight })));
    return focus.chain((f) => {
      const broken = (part: Focus) => f === part || f === 'all';
      return fc
        .record({
          path: this.path(op, broken('path')),
          query: this.query(op, broken('query')),
          headers: this.headers(op, identity, broken('headers')),
          body: this.body(op, broken('body')),
          contentType: broken('content-type') ? contentTypeArb : fc.constant('application/json'),
        })
        .map(({ path, query, headers, body, contentType }) => {
          const what = [...path.what, ...query.what, ...headers.what, ...body.what];
          const out: Record<string, string | string[]> = { ...headers.value };
          if (body.payload !== undefined) {
            if (contentType !== null) out['content-type'] = contentType;
            if (contentType !== 'application/json') what.push(`content-type ${JSON.stringify(contentType)}`);
          }
          return { method: op.method, url: path.value + query.value, headers: out, payload: body.payload, what } satisfies FuzzRequest;
        });
    });
  }

  // ---- values from schemas ----

  /** A valid-looking value for a property of this schema (a real one when `name` is known). */
  value(schema: Schema | undefined, name: string, depth = 0): Arbitrary<unknown> {
    const generic = schema ? this.byType(this.api.resolve(schema), name, depth) : anyJson;
    const known = this.known[name];
    // The first known value is the one a working client sends; the others are real but wrong (another app's, a table with no content).
    return known?.length
      ? fc.oneof(
          { arbitrary: fc.constant(known[0]), weight: 3 },
          { arbitrary: fc.constantFrom(...known), weight: 2 },
          { arbitrary: generic, weight: 2 },
        )
      : generic;
  }

  private byType(s: Schema, name: string, depth: number): Arbitrary<unknown> {
    if (s.enum?.length) return fc.oneof({ arbitrary: fc.constantFrom(...s.enum), weight: 4 }, { arbitrary: stringArb, weight: 1 });
    const alternatives = s.oneOf ?? s.anyOf;
    if (alternatives?.length) return fc.oneof(...alternatives.map((alt) => this.value(alt, name, depth)));
    switch (s.type) {
      case 'string':
        return stringArb;
      case 'number':
      case 'integer':
        return s.minimum !== undefined && s.maximum !== undefined
          ? fc.oneof({ arbitrary: fc.integer({ min: s.minimum, max: s.maximum }), weight: 2 }, { arbitrary: numberArb, weight: 1 })
          : numberArb;
      case 'boolean':
        return fc.boolean();
      case 'array':
        return depth > 3 ? fc.constant([]) : fc.array(this.value(s.items, name, depth + 1), { maxLength: 4 });
      default:
        if (s.properties && depth <= 3) return this.object(s, depth + 1);
        // A free-form object (`data`, `payload`) or a schema without a type.
        return fc.oneof(
          fc.dictionary(
            fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('title', 'price', 'email', 'firstname', 'id', 'app_id')),
            anyJson,
            { maxKeys: 5 },
          ),
          anyJson,
        );
    }
  }

  /** An object of the schema: its required properties always, the others sometimes. */
  object(s: Schema, depth = 0): Arbitrary<Record<string, unknown>> {
    const properties = s.properties ?? {};
    const model: Record<string, Arbitrary<unknown>> = {};
    for (const [key, property] of Object.entries(properties)) model[key] = this.value(property, key, depth);
    return fc.record(model, { requiredKeys: (s.required ?? []).filter((key) => key in properties) }) as Arbitrary<Record<string, unknown>>;
  }

  // ---- bodies ----

  private body(op: Operation, broken: boolean): Arbitrary<{ payload?: Buffer; what: string[] }> {
    // Without a declared JSON body: a GET, or a route that reads its body itself (the payment webhook).
    const valid = op.body?.properties
      ? this.object(op.body)
      : fc.oneof(fc.dictionary(fc.string({ maxLength: 10 }), anyJson, { maxKeys: 4 }), this.paymentEvent());
    if (!broken) {
      if (op.method === 'GET' && !op.body) return fc.constant({ what: [] as string[] });
      const required = Object.fromEntries(Object.entries(op.body?.properties ?? {}).filter(([key]) => op.body?.required?.includes(key)));
      return fc.oneof(
        { arbitrary: valid.map((v) => ({ payload: json(v), what: ['valid-looking body'] })), weight: 3 },
        {
          arbitrary: this.object({ properties: required, required: Object.keys(required) }).map((v) => ({
            payload: json(v),
            what: ['required fields only'],
          })),
          weight: 1,
        },
      );
    }
    return fc.oneof(
      { arbitrary: fc.tuple(valid, structuralMutation).map(([v, m]) => m(v)), weight: 6 },
      { arbitrary: fc.tuple(valid, rawMutation).map(([v, m]) => m(v)), weight: 4 },
      { arbitrary: nonObjectBody, weight: 1 },
    );
  }

  /** Looks like the provider's payment_intent.succeeded event, naming the seeded app and order. */
  private paymentEvent(): Arbitrary<Record<string, unknown>> {
    return fc.record({
      id: fc.oneof(fc.constant('evt_1'), stringArb),
      type: fc.constantFrom('payment_intent.succeeded', 'payment_intent.payment_failed', 'charge.refunded', ''),
      data: fc.record({
        object: fc.record({
          id: fc.oneof(fc.constant('pi_1'), stringArb),
          amount: numberArb,
          metadata: fc.record(
            { appID: this.value(undefined, 'appID'), orderID: this.value(undefined, 'orderID'), customerID: anyJson },
            { requiredKeys: [] },
          ),
        }),
      }),
    });
  }

  // ---- URL ----

  private path(op: Operation, broken: boolean): Arbitrary<{ value: string; what: string[] }> {
    const params = op.parameters.filter((p) => p.in === 'path');
    const segments = op.path.split(/(\{[^}]+\})/).filter((s) => s !== '');
    const parts = segments.map((segment) => {
      const name = /^\{(.+)\}$/.exec(segment)?.[1];
      if (!name) return fc.constant({ text: segment, what: null as string | null });
      const param = params.find((p) => p.name === name);
      return this.pathValue(param, name, broken).map((text) => ({
        text,
        what: `path ${name}=${text.length > 80 ? `${text.slice(0, 80)}… (${text.length})` : text}`,
      }));
    });
    return fc
      .tuple(...parts)
      .map((list) => ({ value: list.map((p) => p.text).join(''), what: list.flatMap((p) => (p.what ? [p.what] : [])) }));
  }

  private pathValue(param: Parameter | undefined, name: string, broken: boolean): Arbitrary<string> {
    const text = (v: unknown) => encode(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''));
    if (!broken) return this.value(param?.schema, name).map(text);
    const encoded = fc.oneof(this.value(param?.schema, name), anyJson).map(text);
    const raw = fc.constantFrom(
      '%00',
      '%zz',
      '%',
      '%c0%af',
      '%ff%fe',
      '..',
      '%2e%2e%2f',
      '%2F',
      '.',
      'a%20b',
      '%E2%80%AE',
      '-1',
      '0',
      '1.5',
      '1e3',
      '0x1f',
      '00001',
      '9'.repeat(30),
      'x'.repeat(5000),
      '%F0%9F%99%82',
    );
    return fc.oneof({ arbitrary: encoded, weight: 4 }, { arbitrary: raw, weight: 2 });
  }

  private query(op: Operation, broken: boolean): Arbitrary<{ value: string; what: string[] }> {
    const declared = op.parameters.filter((p) => p.in === 'query');
    const format = (list: (readonly [string, unknown])[], extra: string | null) => {
      const text = list
        .map(([k, v]) => `${encode(k)}=${encode(typeof v === 'string' ? v : (JSON.stringify(v) ?? ''))}`)
        .concat(extra !== null ? [extra] : [])
        .join('&');
      return text === ''
        ? { value: '', what: [] }
        : { value: `?${text}`, what: [`query ${text.length > 120 ? `${text.slice(0, 120)}… (${text.length})` : text}`] };
    };
    if (!broken) {
      // The declared parameters, the required ones always.
      const model = Object.fromEntries(declared.map((p) => [p.name, this.value(p.schema, p.name)]));
      return fc
        .record(model, { requiredKeys: declared.filter((p) => p.required).map((p) => p.name) })
        .map((values) => format(Object.entries(values), null));
    }
    const pairs = fc.array(
      fc.oneof(
        ...(declared.length
          ? [
              {
                arbitrary: fc.constantFrom(...declared).chain((p) => this.value(p.schema, p.name).map((v) => [p.name, v] as const)),
                weight: 4,
              },
            ]
          : []),
        {
          arbitrary: fc.tuple(
            fc.constantFrom('appID', 'site-id', 'table', 'id', 'a[b]', '__proto__', '__proto__[x]', 'constructor[prototype][x]', 'x', ''),
            anyJson,
          ),
          weight: 1,
        },
      ),
      { maxLength: declared.length ? 5 : 2 },
    );
    const raw = fc.constantFrom(
      '',
      '&',
      '=',
      '?',
      '&&==',
      '%zz=1',
      'a=%00',
      'state=%ff',
      'state=' + 'x'.repeat(6000),
      'state=a&state=b',
      'code[]=1&code[]=2',
    );
    return fc.tuple(pairs, fc.option(raw, { freq: 3 })).map(([list, extra]) => format(list, extra));
  }

  // ---- headers ----

  private headers(
    op: Operation,
    identity: Identity,
    broken: boolean,
  ): Arbitrary<{ value: Record<string, string | string[]>; what: string[] }> {
    // Header parameters the operation declares (stripe-signature) get a known value, like body fields.
    const declared = op.parameters.filter((p) => p.in === 'header' && p.name !== 'site-id').map((p) => p.name);
    const base = fc
      .tuple(
        ...declared.map((name) =>
          this.value(undefined, name).map((v) => [name, typeof v === 'string' ? v : (JSON.stringify(v) ?? '')] as const),
        ),
      )
      .map((pairs) => ({ ...identity.headers, ...Object.fromEntries(pairs) }) as Record<string, string>);
    if (!broken) return base.map((value) => ({ value, what: [] as string[] }));
    const headerText = fc.string({ unit: fc.constantFrom(...HEADER_CHARS), maxLength: 40 });
    const replace = (name: string, keep: string | undefined, garbage: Arbitrary<string | string[]>) =>
      fc.oneof(
        { arbitrary: fc.constant({ value: keep, what: null as string | null }), weight: 4 },
        { arbitrary: fc.constant({ value: undefined, what: `no ${name}` }), weight: 1 },
        { arbitrary: garbage.map((g) => ({ value: g, what: `${name}: ${JSON.stringify(g).slice(0, 200)}` })), weight: 3 },
      );
    const siteId = replace(
      'site-id',
      identity.headers['site-id'],
      fc.oneof(
        fc.constantFrom(...identity.siteIds),
        headerText,
        fc.constantFrom(...identity.siteIds).map((id) => [id, id]),
      ),
    );
    const authorization = replace(
      'authorization',
      identity.headers.authorization,
      fc.oneof(
        { arbitrary: fc.constantFrom(...identity.authorizations), weight: 3 },
        { arbitrary: headerText.map((s) => `Bearer ${s}`), weight: 1 },
        { arbitrary: headerText, weight: 1 },
      ),
    );
    const others = fc.dictionary(
      fc.constantFrom(
        'appkey',
        'x-forwarded-host',
        'host',
        'x-original-host',
        'x-request-id',
        'x-forwarded-for',
        'accept',
        'accept-encoding',
        'origin',
        'stripe-signature',
        ...declared,
      ),
      fc.oneof(
        headerText,
        fc.constantFrom('t=1,v1=00', 't=abc', 'v1=' + 'a'.repeat(64), 'application/xml', 'gzip', '*', '127.0.0.1', ...identity.siteIds),
      ),
      { maxKeys: 3 },
    );
    return fc.record({ base, siteId, authorization, others }).map(({ base, siteId, authorization, others }) => {
      const value: Record<string, string | string[]> = {};
      for (const [k, v] of Object.entries(base)) if (k !== 'site-id' && k !== 'authorization') value[k] = v;
      if (siteId.value !== undefined) value['site-id'] = siteId.value;
      if (authorization.value !== undefined) value.authorization = authorization.value;
      Object.assign(value, others);
      const what = [siteId.what, authorization.what].filter((w): w is string => w !== null);
      for (const [k, v] of Object.entries(others)) what.push(`${k}: ${JSON.stringify(v)}`);
      return { value, what };
    });
  }
}

type Focus = 'body' | 'headers' | 'path' | 'query' | 'content-type' | 'all';

/** What a header value can carry on the wire: tab, printable ASCII and obs-text bytes. */
const HEADER_CHARS = [
  '\t',
  ...Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i)),
  ...Array.from({ length: 8 }, (_, i) => String.fromCharCode(0x80 + i * 16 + 5)),
];

const contentTypeArb: Arbitrary<string | null> = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 1 },
  {
    arbitrary: fc.constantFrom(
      null,
      '',
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'APPLICATION/JSON',
      'application/json;',
      'application/json, text/plain',
      'application/vnd.api+json',
      'application/problem+json',
      'text/plain',
      'text/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=xyz',
      'application/octet-stream',
      '*/*',
      'application/json; boundary=',
      ';;;',
      'application/\u00e9json',
    ),
    weight: 3,
  },
);

/** Percent-encoding of the string's UTF-8 bytes (a lone surrogate, which encodeURIComponent refuses, as U+FFFD). */
function encode(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8'))
    out += /[A-Za-z0-9\-_.~]/.test(String.fromCharCode(byte))
      ? String.fromCharCode(byte)
      : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

function json(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value) ?? 'null', 'utf8');
}

/** A path inside a JSON value: the keys and indexes from the root to a property or element. */
type Path = (string | number)[];

function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (value !== null && typeof value === 'object' && prefix.length < 6) {
    for (const [k, v] of Object.entries(value)) {
      const path = [...prefix, Array.isArray(value) ? Number(k) : k];
      out.push(path);
      pathsOf(v, path, out);
    }
  }
  return out;
}

function clone<T>(value: T): T {
  return structuredClone(value);
}

/** Sets (or with `remove` deletes) the value at `path`; an own property even for `__proto__`. */
function setAt(root: unknown, path: Path, value: unknown, remove = false): void {
  let node = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  const last = path[path.length - 1];
  if (remove) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else Object.defineProperty(node, last, { value, enumerable: true, writable: true, configurable: true });
}

/** A path in `value` chosen by `pick` (or the root's new key `fallback` when it has none). */
function choose(value: unknown, pick: number, fallback: string): Path {
  const paths = pathsOf(value);
  return paths.length ? paths[pick % paths.length] : [fallback];
}

const label = (path: Path) => path.map(String).join('.');

type BodyMutation = (value: Record<string, unknown>) => { payload?: Buffer; what: string[] };

/** Changes to the parsed body: wrong types, missing and extra fields, huge and deep values, many items. */
const structuralMutation: Arbitrary<BodyMutation> = fc.oneof(
  // A field of the wrong type.
  fc.tuple(fc.nat(), anyJson).map(([pick, wrong]): BodyMutation => (v) => {
    const out = clone(v);
    const path = choose(out, pick, 'field');
    setAt(out, path, wrong);
    return { payload: json(out), what: [`${label(path)} = ${JSON.stringify(wrong)?.slice(0, 200)}`] };
  }),
  // Fields left out.
  fc.array(fc.nat(), { minLength: 1, maxLength: 3 }).map((picks): BodyMutation => (v) => {
    const out = clone(v);
    const removed: string[] = [];
    for (const pick of picks) {
      const paths = pathsOf(out);
      if (!paths.length) break;
      const path = paths[pick % paths.length];
      setAt(out, path, undefined, true);
      removed.push(label(path));
    }
    return { payload: json(out), what: [`without ${removed.join(', ')}`] };
  }),
  // Fields the DTO does not declare, at the top or inside a nested object.
  fc
    .tuple(
      fc.nat(),
      fc.dictionary(
        fc.oneof(
          fc.string({ maxLength: 12 }),
          fc.constantFrom(
            '__proto__',
            'constructor',
            'prototype',
            'toString',
            'valueOf',
            'isAdmin',
            'role',
            'app_id',
            'id',
            'meta_status',
            'password',
            'primary_role',
            '$where',
            '',
          ),
        ),
        anyJson,
        { minKeys: 1, maxKeys: 5 },
      ),
    )
    .map(([pick, extra]): BodyMutation => (v) => {
      const out = clone(v);
      const objects = [[] as Path, ...pathsOf(out)].filter((p) => isPlainObject(p.length ? get(out, p) : out));
      const at = objects[pick % objects.length];
      const target = (at.length ? get(out, at) : out) as Record<string, unknown>;
      for (const [k, x] of Object.entries(extra)) setAt(target, [k], x);
      return { payload: json(out), what: [`extra fields at ${label(at) || 'top'}: ${JSON.stringify(extra).slice(0, 200)}`] };
    }),
  // A huge string: within and over each route's body limit (16 KB, 64 KB, 1 MB), in one- to four-byte characters.
  fc
    .tuple(fc.nat(), fc.constantFrom(15_000, 17_000, 63_000, 66_000, 1_040_000, 1_100_000), fc.constantFrom('a', 'é', '€', '🙂', '\u0000'))
    .map(([pick, bytes, char]): BodyMutation => (v) => {
      const out = clone(v);
      const path = choose(out, pick, 'field');
      const size = Buffer.byteLength(JSON.stringify(char)) - 2;
      setAt(out, path, char.repeat(Math.floor(bytes / size)));
      return { payload: json(out), what: [`${label(path)} = ${JSON.stringify(char)} × ${Math.floor(bytes / size)} (${bytes} bytes)`] };
    }),
  // Deep nesting, on both sides of the parser's depth limit.
  fc.tuple(fc.nat(), fc.integer({ min: 2, max: 40 }), fc.boolean()).map(([pick, depth, arrays]): BodyMutation => (v) => {
    const out = clone(v);
    const path = choose(out, pick, 'field');
    let nested: unknown = get(out, path) ?? 1;
    for (let i = 0; i < depth; i++) nested = arrays ? [nested] : { a: nested };
    setAt(out, path, nested);
    return { payload: json(out), what: [`${label(path)} nested ${depth} ${arrays ? 'arrays' : 'objects'} deep`] };
  }),
  // Many items: an array or object around the body's item limit.
  fc.tuple(fc.nat(), fc.constantFrom(50, 2_400, 2_600, 20_000), fc.boolean()).map(([pick, count, asArray]): BodyMutation => (v) => {
    const out = clone(v);
    const path = choose(out, pick, 'field');
    setAt(
      out,
      path,
      asArray ? Array.from({ length: count }, (_, i) => i) : Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, i])),
    );
    return { payload: json(out), what: [`${label(path)} = ${count} ${asArray ? 'elements' : 'keys'}`] };
  }),
  // A value wrapped in an array, an array's first element in its place, an object or number sent as its JSON text.
  fc.tuple(fc.nat(), fc.constantFrom('wrap', 'unwrap', 'text')).map(([pick, kind]): BodyMutation => (v) => {
    const out = clone(v);
    const path = choose(out, pick, 'field');
    const value = get(out, path);
    setAt(
      out,
      path,
      kind === 'wrap' ? [value] : kind === 'unwrap' ? (Array.isArray(value) ? value[0] : { value }) : (JSON.stringify(value) ?? ''),
    );
    return { payload: json(out), what: [`${label(path)} ${kind}`] };
  }),
  // Every field null.
  fc.constant<BodyMutation>((v) => ({
    payload: json(Object.fromEntries(Object.keys(v).map((k) => [k, null]))),
    what: ['every field null'],
  })),
);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function get(root: unknown, path: Path): unknown {
  let node = root as Record<string | number, unknown> | undefined;
  for (const key of path) node = node?.[key] as Record<string | number, unknown> | undefined;
  return node;
}

/** Bytes and literals inside a JSON string that a serializer never writes. */
const STRING_CONTENT = [
  [0x00],
  [0xff],
  [0xc0, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xf8, 0x88, 0x80, 0x80, 0x80],
  [0xc3],
  [0x80],
  [0x0a],
  [0x1b],
  [0xe2, 0x80, 0xae],
  [0xef, 0xbb, 0xbf],
  '\\u0000',
  'a\\u0000b',
  '\\ud800',
  '\\udfff',
  '\\ud800\\u0041',
  '\\udbff\\udfff',
  '\\u202e',
  '\\',
  '\\x41',
  '\\u00',
  '\\/',
  '"',
  '\\"',
];

/** Number literals JSON allows that JavaScript reads oddly, ones it does not allow, and numbers sent as text. */
const NUMBER_LITERALS = [
  '1e309',
  '-1e309',
  '-0',
  '-0.0',
  '1e-400',
  '123456789012345678901234567890',
  '0.1e1',
  '1E2',
  '1.0',
  '9007199254740993',
  '4294967297',
  '2147483648',
  '0x10',
  'NaN',
  'Infinity',
  '-Infinity',
  '01',
  '.5',
  '+1',
  '1.',
  'true',
  'null',
  '"NaN"',
  '"1e309"',
  '"-0"',
  '"7"',
  '" 7 "',
  '"0x10"',
  '"Infinity"',
  '"1,5"',
  '""',
  '[7]',
  '{"$gt":0}',
];

const raw = (text: string) => Buffer.from(text, 'utf8');

/** Changes to the JSON text itself: keys a parser must refuse, bytes and escapes inside strings, odd numbers, broken and re-encoded text. */
const rawMutation: Arbitrary<BodyMutation> = fc.oneof(
  // __proto__ and constructor keys, plain and escaped, at the top or in a nested object.
  fc
    .tuple(
      fc.constantFrom(
        '"__proto__":{"isAdmin":true,"role":"admin"}',
        '"constructor":{"prototype":{"isAdmin":true}}',
        '"__pro\\u0074o__":{"x":1}',
        '"\\u005f_proto__":{"x":1}',
        '"__proto__":null',
        '"__proto__":[]',
        '"constructor":"x"',
        '"prototype":{"x":1}',
      ),
      fc.nat(),
    )
    .map(([key, pick]): BodyMutation => (v) => {
      const text = JSON.stringify(v);
      const opens = structuralOpens(text);
      const at = opens[pick % opens.length];
      const empty = text[at + 1] === '}';
      return { payload: raw(text.slice(0, at + 1) + key + (empty ? '' : ',') + text.slice(at + 1)), what: [`raw key ${key} at ${at}`] };
    }),
  // A key twice: the second of another type.
  fc.tuple(fc.nat(), anyJson).map(([pick, wrong]): BodyMutation => (v) => {
    const keys = Object.keys(v);
    const key = keys.length ? keys[pick % keys.length] : 'field';
    const text = JSON.stringify(v);
    const dup = `${JSON.stringify(key)}:${JSON.stringify(wrong) ?? 'null'}`;
    return {
      payload: raw(text === '{}' ? `{${dup},${dup}}` : `${text.slice(0, -1)},${dup}}`),
      what: [`duplicate key ${dup.slice(0, 200)}`],
    };
  }),
  // Raw bytes (NUL, invalid UTF-8) and escapes (lone surrogates, NUL) inside a string value.
  fc.tuple(fc.nat(), fc.constantFrom(...STRING_CONTENT), fc.boolean()).map(([pick, content, alone]): BodyMutation => (v) => {
    const out = clone(v);
    const path = choose(out, pick, 'field');
    setAt(out, path, alone ? MARK : `ab${MARK}cd`);
    const bytes = typeof content === 'string' ? raw(content) : Buffer.from(content);
    return {
      payload: replaceMark(json(out), bytes),
      what: [`${label(path)} string holds ${typeof content === 'string' ? content : `bytes ${Buffer.from(content).toString('hex')}`}`],
    };
  }),
  // Odd number literals in place of a value.
  fc.tuple(fc.nat(), fc.constantFrom(...NUMBER_LITERALS)).map(([pick, literal]): BodyMutation => (v) => {
    const out = clone(v);
    const path = choose(out, pick, 'field');
    setAt(out, path, MARK);
    return { payload: replaceMark(json(out), raw(literal), true), what: [`${label(path)} = ${literal}`] };
  }),
  // Broken, padded and re-encoded text.
  fc
    .tuple(
      fc.constantFrom('truncate', 'trailing', 'two', 'bom', 'utf16', 'utf16bom', 'latin1', 'whitespace', 'comment', 'single-quotes'),
      fc.nat(),
    )
    .map(([kind, n]): BodyMutation => (v) => {
      const text = JSON.stringify(v);
      const payloads: Record<string, () => Buffer> = {
        truncate: () => raw(text.slice(0, n % Math.max(text.length, 1))),
        trailing: () => raw(`${text}x`),
        two: () => raw(`${text}${text}`),
        bom: () => Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), raw(text)]),
        utf16: () => Buffer.from(text, 'utf16le'),
        utf16bom: () => Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]),
        latin1: () => Buffer.from(text.replace(/}$/, ',"x":"caf\u00e9"}'), 'latin1'),
        whitespace: () => raw(`\n\t ${text} \r\n`),
        comment: () => raw(`/* c */${text}`),
        'single-quotes': () => raw(text.replace(/"/g, "'")),
      };
      return { payload: payloads[kind](), what: [`body text ${kind}`] };
    }),
);

/** Bodies that are no object at all (and an empty body, which counts as `{}`). */
const nonObjectBody = fc
  .constantFrom(
    '',
    ' ',
    '[]',
    '[{}]',
    '"x"',
    'null',
    '0',
    'true',
    '1e309',
    '"\\u0000"',
    '[[[[]]]]',
    '{',
    '}',
    '{"a":',
    'undefined',
    '\u0000',
    '\ufeff{}',
  )
  .map((text) => ({ payload: raw(text), what: [`body ${JSON.stringify(text)}`] }));

/** Positions of the `{` that open objects (not those inside strings). */
function structuralOpens(text: string): number[] {
  const out: number[] = [];
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') out.push(i);
  }
  return out.length ? out : [0];
}

/** `buffer` with the marker string replaced by `bytes` (with `quoted`, the marker's quotes too). */
function replaceMark(buffer: Buffer, bytes: Buffer, quoted = false): Buffer {
  const needle = Buffer.from(quoted ? `"${MARK}"` : MARK);
  const at = buffer.indexOf(needle);
  if (at === -1) return buffer;
  return Buffer.concat([buffer.subarray(0, at), bytes, buffer.subarray(at + needle.length)]);
}
