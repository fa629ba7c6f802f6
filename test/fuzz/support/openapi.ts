/** The subset of OpenAPI 3 that the service's generated document uses, read as the fuzzer needs it. */
export interface Schema {
  $ref?: string;
  type?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  enum?: unknown[];
  allOf?: Schema[];
  oneOf?: Schema[];
  anyOf?: Schema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  nullable?: boolean;
}

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: Schema;
}

export interface Operation {
  method: string;
  /** OpenAPI path, `{name}` for path parameters. */
  path: string;
  /** `METHOD /path`, the name failures are reported under. */
  name: string;
  parameters: Parameter[];
  /** The JSON request body's schema, resolved one level (properties may still hold `$ref`s). */
  body: Schema | null;
  /** Response statuses the operation documents itself (not the shared components.responses it refers to). */
  documented: Set<number>;
  /** Declares a bearer security requirement. */
  bearer: boolean;
}

interface Document {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters?: Parameter[];
        requestBody?: { content?: Record<string, { schema?: Schema }> };
        responses?: Record<string, unknown>;
        security?: Record<string, unknown>[];
      }
    >
  >;
  components?: { schemas?: Record<string, Schema> };
}

const METHODS = new Set(['get', 'post', 'put', 'patch', 'delete']);

export class OpenApi {
  readonly operations: Operation[];

  constructor(private readonly document: Document) {
    this.operations = [];
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!METHODS.has(method)) continue;
        const schema = op.requestBody?.content?.['application/json']?.schema;
        this.operations.push({
          method: method.toUpperCase(),
          path,
          name: `${method.toUpperCase()} ${path}`,
          parameters: op.parameters ?? [],
          body: schema ? this.resolve(schema) : null,
          // The operation's own answers: the shared ones every operation gets by $ref (500, 503, …) do not make a 5xx an answer here.
          documented: new Set(
            Object.entries(op.responses ?? {})
              .filter(([, response]) => !(response as { $ref?: string }).$ref)
              .map(([status]) => Number(status)),
          ),
          bearer: (op.security ?? []).some((requirement) => Object.keys(requirement).some((scheme) => scheme.endsWith('bearer'))),
        });
      }
    }
  }

  /** The schema a `$ref` names, and `allOf` of one schema as that schema. */
  resolve(schema: Schema): Schema {
    let s = schema;
    for (let i = 0; i < 20; i++) {
      if (s.$ref) {
        const name = s.$ref.replace('#/components/schemas/', '');
        const target = this.document.components?.schemas?.[name];
        if (!target) throw new Error(`OpenAPI document: ${s.$ref} is not defined`);
        s = target;
      } else if (s.allOf && s.allOf.length === 1 && !s.properties) {
        s = s.allOf[0];
      } else {
        return s;
      }
    }
    throw new Error('OpenAPI document: $ref cycle');
  }
}
