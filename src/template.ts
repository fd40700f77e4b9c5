/**
 * SQL templates of SPEC §4: `{{name}}` placeholders become bound parameters.
 *
 * The template is tokenized once with the quoting rules of its dialect, so a placeholder is
 * recognised only where it can stand for a value: bare in the SQL text, or inside a string
 * literal. Comments and postgres dollar-quoted strings are copied untouched. A placeholder that
 * is the operand of LIMIT, OFFSET or FETCH FIRST/NEXT is a row count: `bind` accepts only a
 * non-negative safe integer for it, on both dialects.
 */

import { SqlResourceError } from './errors';
import { integerOf } from './integers';
import type { SqlDialect } from './dialect';
import { dialectNamed, type DialectName } from './dialects';
import type { ParameterRule } from './template-scanner';

export { TemplateError, type ParameterRule } from './template-scanner';

/** A built-in dialect by name, kept for callers of 0.1 (`compileTemplate(sql, 'mysql')`). */
export type Dialect = DialectName;

/** A template parsed once per endpoint; binding it per request does no parsing. */
export interface CompiledTemplate {
  /** SQL text with the dialect's placeholders (`?` or `$1..$n`) in place of every `{{name}}`. */
  readonly sql: string;
  /** Variable name for each bound parameter, in parameter order (a name repeats if used twice). */
  readonly parameterNames: readonly string[];
  /** Distinct variable names the template needs. */
  readonly variables: readonly string[];
  /** The rule of each bound parameter, in parameter order (parallel to `parameterNames`). */
  readonly parameterRules: readonly ParameterRule[];
  /**
   * Parameter values in order, looking each name up with `lookup`.
   * @throws SqlResourceError `TEMPLATE_VARIABLE` (400) when a value breaks its parameter's rule;
   * the message names the variable and the rule, never the value.
   */
  bind(lookup: (name: string) => unknown): unknown[];
}

/**
 * Compiles `template` for `dialect` (a resource's `dialect`, or a built-in dialect's name): every
 * `{{name}}` becomes a bound parameter, read with that dialect's quoting rules.
 * @throws TemplateError when the template is malformed or puts a placeholder where no value fits.
 */
export function compileTemplate(template: string, dialect: SqlDialect | Dialect): CompiledTemplate {
  const rules = typeof dialect === 'string' ? dialectNamed(dialect) : dialect;
  const { sql, parameterNames, parameterRules } = rules.scanTemplate(template);
  const variables = [...new Set(parameterNames)];
  return Object.freeze({
    sql,
    parameterNames: Object.freeze(parameterNames),
    variables: Object.freeze(variables),
    parameterRules: Object.freeze(parameterRules),
    bind: binder(parameterNames, parameterRules),
  });
}

type Converter = (value: unknown) => unknown;

/** `bind` for these parameters, with each rule's converter chosen once, here. */
function binder(names: readonly string[], rules: readonly ParameterRule[]): CompiledTemplate['bind'] {
  if (rules.every((rule) => rule === 'value')) return (lookup) => names.map((name) => lookup(name));
  const converters = rules.map((rule, i): Converter | undefined =>
    rule === 'value' ? undefined : nonNegativeIntegerConverter(names[i]),
  );
  return (lookup) => {
    const values = new Array<unknown>(names.length);
    for (let i = 0; i < names.length; i += 1) {
      const value = lookup(names[i]);
      const convert = converters[i];
      values[i] = convert === undefined ? value : convert(value);
    }
    return values;
  };
}

/**
 * A safe integer ≥ 0 as a number, or undefined: an integer number, a bigint, or its canonical
 * decimal text (no sign, space, leading zero, fraction or exponent).
 */
export function toNonNegativeInteger(value: unknown): number | undefined {
  const integer = integerOf(value);
  return integer !== undefined && integer >= 0 ? integer : undefined;
}

function nonNegativeIntegerConverter(name: string): Converter {
  const message = `template variable '${name}' must be a non-negative integer (LIMIT/OFFSET)`;
  return (value) => {
    const converted = toNonNegativeInteger(value);
    if (converted === undefined) throw new SqlResourceError('TEMPLATE_VARIABLE', message, { field: name });
    return converted;
  };
}