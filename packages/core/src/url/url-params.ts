/** What one query parameter of a store URL may hold. */
export type UrlParam =
  | { readonly kind: 'integer'; readonly min?: number; readonly max?: number }
  | { readonly kind: 'text'; readonly pattern: RegExp; readonly hint: string }
  | { readonly kind: 'choice'; readonly values: readonly string[] };

/** The parameters a backend reads, by name. */
export type UrlParamSpec = Readonly<Record<string, UrlParam>>;

/** The value type a parameter of `spec` parses to. */
export type UrlParamValues<S extends UrlParamSpec> = {
  -readonly [K in keyof S]?: S[K] extends { kind: 'integer' } ? number : string;
};

const INTEGER = /^[0-9]{1,15}$/;

/**
 * Reads a store URL's query (`a=1&b=x`, without the `?`) against `spec`, the one way every
 * backend parses its URL parameters: a parameter given twice, out of range or not in the
 * spec is refused through `fail` (which throws the backend's own `FATE_BAD_URL`), except
 * that with `keepUnknown` unknown ones are returned in `rest` for a driver to read
 * (PostgreSQL's `sslmode`, say). Integers are decimal digits, at least `min` (default 1).
 */
export function readUrlParams<S extends UrlParamSpec>(
  query: string,
  spec: S,
  fail: (why: string) => never,
  options: { readonly keepUnknown?: boolean } = {},
): { values: UrlParamValues<S>; rest: URLSearchParams } {
  const values: Record<string, string | number> = {};
  const rest = new URLSearchParams();
  for (const [name, value] of new URLSearchParams(query)) {
    const param = Object.hasOwn(spec, name) ? spec[name] : undefined;
    if (!param) {
      if (options.keepUnknown) {
        rest.append(name, value);
        continue;
      }
      const known = Object.keys(spec);
      fail(`unknown parameter "${name}" (${known.length ? `known: ${known.join(', ')}` : 'none'})`);
    }
    if (Object.hasOwn(values, name)) fail(`${name} is given twice`);
    values[name] = readOne(name, value, param, fail);
  }
  return { values: values as UrlParamValues<S>, rest };
}

function readOne(
  name: string,
  value: string,
  param: UrlParam,
  fail: (why: string) => never,
): string | number {
  switch (param.kind) {
    case 'integer': {
      const { min = 1, max = Number.MAX_SAFE_INTEGER } = param;
      const n = INTEGER.test(value) ? Number(value) : Number.NaN;
      if (!(n >= min && n <= max)) {
        fail(`${name} must be an integer in ${min}..${max}, not ${JSON.stringify(value)}`);
      }
      return n;
    }
    case 'text':
      if (!param.pattern.test(value)) fail(`${name} must be ${param.hint}`);
      return value;
    case 'choice':
      if (!param.values.includes(value)) {
        fail(`${name} must be one of ${param.values.join(', ')}, not ${JSON.stringify(value)}`);
      }
      return value;
  }
}
