import { authVariablePrefix } from '../../claims';
import { isPlainObject } from '../../config';
import type { CompiledTemplate } from '../../template';
import type { ProblemPath } from '../problems';
import { didYouMean } from '../schema/did-you-mean';
import {
  isParameterType,
  parameterRules,
  parameterSchema,
  parameterTypes,
  pathParameterNames,
  rulesOfType,
  typeArticles,
  type ParameterDeclaration,
  type ParameterType,
} from './parameter-types';
import { parameterAjv, ruleReason } from './validator';

/** A problem of an endpoint's `params`, its path below the endpoint's entry. */
export interface ParameterProblem {
  readonly path: ProblemPath;
  readonly key?: string;
  readonly message: string;
}

type Report = (path: ProblemPath, message: string, key?: string) => void;

const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isLength = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

/** Whether a profile value is of the type: an integer within ±(2^53−1), a finite number, … */
function ofType(type: ParameterType, value: unknown): boolean {
  if (type === 'integer') return Number.isSafeInteger(value);
  if (type === 'number') return isFiniteNumber(value);
  if (type === 'boolean') return typeof value === 'boolean';
  return typeof value === 'string';
}

/** Why `value` breaks the rules of `schema`, or undefined when it keeps them. */
function brokenRule(schema: Record<string, unknown>, type: ParameterType, value: unknown): string | undefined {
  // Without its default: Ajv refuses one at the root of a schema.
  const rules = { ...schema };
  delete rules.default;
  const validate = parameterAjv().compile(rules);
  if (validate(value)) return undefined;
  return validate.errors?.[0] ? ruleReason(validate.errors[0], type) : 'is not valid';
}

/** Checks one declaration's rules; `at` is its path. */
function checkRules(rules: Record<string, unknown>, at: ProblemPath, report: Report): void {
  for (const key of Object.keys(rules)) {
    if (!(parameterRules as readonly string[]).includes(key)) report(at, `unknown key '${key}'${didYouMean(key, parameterRules)}`, key);
  }
  const type = rules.type;
  if (type === undefined) return report(at, `needs a type: one of ${parameterTypes.join(', ')}`);
  if (!isParameterType(type)) {
    const hint = typeof type === 'string' ? didYouMean(type, parameterTypes) : '';
    return report([...at, 'type'], `${typeof type === 'string' ? `'${type}'` : 'this'} is not one of ${parameterTypes.join(', ')}${hint}`);
  }
  const fits = rulesOfType[type];
  let sound = true;
  const wrong = (rule: string, message: string, index?: number): void => {
    sound = false;
    report(index === undefined ? [...at, rule] : [...at, rule, index], message);
  };
  for (const rule of ['enum', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern'] as const) {
    if (rules[rule] !== undefined && !fits.includes(rule)) {
      wrong(rule, `does not apply to ${typeArticles[type]} parameter${fits.length === 0 ? ' (it takes no rules)' : ` (its rules: ${fits.join(', ')})`}`);
    }
  }
  const { enum: allowed, minimum, maximum, minLength, maxLength, pattern, required } = rules;
  if (fits.includes('minimum')) {
    if (minimum !== undefined && !isFiniteNumber(minimum)) wrong('minimum', 'must be a number');
    if (maximum !== undefined && !isFiniteNumber(maximum)) wrong('maximum', 'must be a number');
    if (isFiniteNumber(minimum) && isFiniteNumber(maximum) && minimum > maximum) wrong('maximum', `is below minimum (${minimum})`);
  }
  if (fits.includes('minLength')) {
    if (minLength !== undefined && !isLength(minLength)) wrong('minLength', 'must be an integer >= 0');
    if (maxLength !== undefined && !isLength(maxLength)) wrong('maxLength', 'must be an integer >= 0');
    if (isLength(minLength) && isLength(maxLength) && minLength > maxLength) wrong('maxLength', `is below minLength (${minLength})`);
  }
  if (fits.includes('pattern') && pattern !== undefined) {
    if (typeof pattern !== 'string') wrong('pattern', 'must be a regular expression, as a string');
    else {
      try {
        new RegExp(pattern, 'u');
      } catch (error) {
        wrong('pattern', `is not a valid regular expression: ${(error as Error).message}`);
      }
    }
  }
  if (required !== undefined && typeof required !== 'boolean') wrong('required', 'must be true or false');
  if (required === true && rules.default !== undefined) wrong('required', 'cannot be true beside a default: a parameter with a default is optional');
  if (fits.includes('enum') && allowed !== undefined) {
    if (!Array.isArray(allowed) || allowed.length === 0) wrong('enum', `must be a list of ${type} values`);
    else {
      allowed.forEach((value, index) => {
        const reason = ofType(type, value) ? brokenRule(parameterSchema({ type }), type, value) : `must be ${typeArticles[type]}`;
        if (reason !== undefined) wrong('enum', reason, index);
      });
    }
  }
  if (rules.default === undefined) return;
  // The default meets the same schema as a request's value: its type first, then its own rules
  // (its type's alone while they are wrong themselves).
  if (!ofType(type, rules.default)) return report([...at, 'default'], `must be ${typeArticles[type]}, as the parameter's type`);
  const reason = brokenRule(parameterSchema(sound ? (rules as unknown as ParameterDeclaration) : { type }), type, rules.default);
  if (reason !== undefined) report([...at, 'default'], `breaks the parameter's own rules: it ${reason}`);
}

/**
 * What is wrong with an endpoint's `params` (SPEC §8): each name must be one of its path
 * parameters or a `{{name}}` of its template that a request supplies; each type and rule must
 * be known, fit the type, and agree with the others. `template` is undefined for an endpoint
 * without `sql`; `templateUnknown` when its `sql` could not be compiled (its variables are then
 * unknown, and names that are not path parameters are not judged).
 */
export function parameterProblems(entry: Record<string, unknown>, template: CompiledTemplate | undefined, templateUnknown = false): ParameterProblem[] {
  const problems: ParameterProblem[] = [];
  const report: Report = (path, message, key) => void problems.push({ path, key, message });
  const params = entry.params;
  if (params === undefined) return problems;
  if (!isPlainObject(params)) {
    report(['params'], 'must be a mapping: parameter name → its type and rules');
    return problems;
  }
  const inPath = pathParameterNames(typeof entry.path === 'string' ? entry.path : '');
  const fromRequest = (template?.variables ?? []).filter((name) => !name.startsWith(authVariablePrefix) && !Object.prototype.hasOwnProperty.call(entry, name));
  for (const [name, rules] of Object.entries(params)) {
    const at: ProblemPath = ['params', name];
    if (!inPath.has(name) && !templateUnknown && !fromRequest.includes(name)) {
      if (name.startsWith(authVariablePrefix)) report(at, `cannot be declared: {{${name}}} comes from the caller's verified claims, not from the request`);
      else if (Object.prototype.hasOwnProperty.call(entry, name) && template?.variables.includes(name)) {
        report(at, `cannot be declared: '${name}' is a configuration key of this endpoint, which a request can not set`);
      } else {
        const hint = didYouMean(name, [...inPath, ...fromRequest]);
        report(at, `names no parameter of this endpoint: '${name}' must be a path parameter (:${name}) or a {{${name}}} variable of its sql${hint}`);
      }
    }
    if (!isPlainObject(rules)) report(at, `must be a mapping with a type (${parameterTypes.join(', ')}) and rules`);
    else checkRules(rules, at, report);
  }
  return problems;
}
