/**
 * The value kinds both parameter tables share (Web API `/pfc` and the
 * colour-correction container): how each is described in an error message and
 * how a typed or query-string value is parsed. One place, so `800`, `"800"`
 * and `"true"` mean the same to the client, the CLI and the emulator.
 */

/** A shared value kind as a table row declares it. */
export type ScalarSpec =
  | { kind: 'bool' }
  | { kind: 'int'; min: number; max: number }
  | { kind: 'enum'; values: readonly (string | number)[]; numeric?: boolean; caseInsensitive?: boolean }
  | { kind: 'decimal'; positive?: boolean };

export type Parsed = { ok: true; value: unknown } | { ok: false };

/**
 * Number text is read strictly: no padding, no `+`. The documents show plain
 * digits, a service that parses `%20800` or `+800` is not promised, and the
 * emulator must refuse what the real service may refuse.
 */
const INTEGER = /^-?\d+$/;
const DECIMAL = /^-?(\d+(\.\d*)?|\.\d+)$/;

/** What a value of this kind may be, as said in error messages ("an integer from 1 to 100"). */
export function describeScalar(spec: ScalarSpec): string {
  switch (spec.kind) {
    case 'bool':
      return 'true or false';
    case 'int':
      return `an integer from ${spec.min} to ${spec.max}`;
    case 'enum':
      return `one of ${spec.values.join(', ')}`;
    case 'decimal':
      return spec.positive ? 'a positive decimal number' : 'a decimal number';
  }
}

/**
 * Parse a typed or query-string value. `boolCaseInsensitive`: the container
 * takes `TRUE`, the Web API only `true`/`false`. Decimals keep their text
 * (trimmed), so the exact digits reach the service.
 */
export function parseScalar(spec: ScalarSpec, raw: unknown, options: { boolCaseInsensitive?: boolean } = {}): Parsed {
  switch (spec.kind) {
    case 'bool': {
      if (typeof raw === 'boolean') return { ok: true, value: raw };
      if (typeof raw !== 'string') return { ok: false };
      const s = options.boolCaseInsensitive ? raw.toLowerCase() : raw;
      return s === 'true' || s === 'false' ? { ok: true, value: s === 'true' } : { ok: false };
    }
    case 'int': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && INTEGER.test(raw) ? Number(raw) : NaN;
      return Number.isInteger(n) && n >= spec.min && n <= spec.max ? { ok: true, value: n } : { ok: false };
    }
    case 'enum': {
      if (spec.numeric) {
        const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
        return spec.values.includes(n) ? { ok: true, value: n } : { ok: false };
      }
      if (typeof raw !== 'string') return { ok: false };
      const hit = spec.values.find((v) => (spec.caseInsensitive ? String(v).toLowerCase() === raw.toLowerCase() : v === raw));
      return hit === undefined ? { ok: false } : { ok: true, value: hit };
    }
    case 'decimal': {
      const s = typeof raw === 'number' ? String(raw) : raw;
      if (typeof s !== 'string' || !DECIMAL.test(s)) return { ok: false };
      if (spec.positive && !(Number(s) > 0)) return { ok: false };
      return { ok: true, value: s };
    }
  }
}
