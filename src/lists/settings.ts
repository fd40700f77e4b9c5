import { isPlainObject } from '../config';

/**
 * What a `list` endpoint lets its clients ask (SPEC §8), read once from its configuration:
 * which columns they may filter, sort and pick, how pages are cut, how rows are counted.
 */

/** Count modes from the cheapest: an endpoint allows its own and every cheaper one. */
export const countModes = ['none', 'estimated', 'exact'] as const;

export type CountMode = (typeof countModes)[number];

export interface PageSettings {
  readonly defaultLimit: number;
  readonly maxLimit: number;
}

export interface ListSettings {
  /** Columns a client may filter on (`?status=eq.open`). */
  readonly filters: ReadonlySet<string>;
  /** Columns a client may order by (`?order=created_at.desc`). */
  readonly sort: ReadonlySet<string>;
  /** Columns a client may pick (`?select=id,status`), and the default projection; every column when absent. */
  readonly select?: readonly string[];
  /** Absent: the list answers every row, streamed, as before SPEC §8. */
  readonly page?: PageSettings;
  /** The mode a request gets unless its `Prefer: count=` asks a cheaper one. */
  readonly count: CountMode;
}

export const defaultPage: PageSettings = Object.freeze({ defaultLimit: 100, maxLimit: 1000 });

/** Query-string keys a list reads itself: never filters, never template variables of a paged list. */
export const listQueryKeys: ReadonlySet<string> = new Set(['select', 'order', 'limit', 'offset', 'after']);

/** The keys of this file, on a `list` endpoint. */
export const listKeys = ['filters', 'sort', 'select', 'page', 'count'] as const;

const columnList = (value: unknown): string[] => (Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : []);

function positiveInteger(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1 ? value : undefined;
}

/** The settings of a validated `list` entry (`listProblems` found nothing). */
export function listSettings(config: Readonly<Record<string, unknown>>): ListSettings {
  const page = config.page;
  let pageSettings: PageSettings | undefined;
  if (isPlainObject(page) || page === true) {
    const given = isPlainObject(page) ? page : {};
    const maxLimit = positiveInteger(given.maxLimit) ?? Math.max(defaultPage.maxLimit, positiveInteger(given.defaultLimit) ?? 0);
    pageSettings = { defaultLimit: positiveInteger(given.defaultLimit) ?? Math.min(defaultPage.defaultLimit, maxLimit), maxLimit };
  }
  return {
    filters: new Set(columnList(config.filters)),
    sort: new Set(columnList(config.sort)),
    select: config.select === undefined ? undefined : columnList(config.select),
    page: pageSettings,
    count: countModes.includes(config.count as CountMode) ? (config.count as CountMode) : 'none',
  };
}

/**
 * Problems of a `list` entry's keys: each with the key it is about. `templateVariables`: those of
 * its `sql`, when it has one.
 */
export function listProblems(entry: Readonly<Record<string, unknown>>, templateVariables: readonly string[] | undefined): { key: string; message: string }[] {
  const problems: { key: string; message: string }[] = [];
  const isTableList = typeof entry.table === 'string' && entry.sql === undefined;
  // Beside an sql template that reads {{table}}, `table` is that template's configuration, as it always was.
  if (typeof entry.table === 'string' && typeof entry.sql === 'string' && !templateVariables?.includes('table')) {
    problems.push({ key: 'table', message: 'a list endpoint takes sql or table, not both' });
  }
  for (const key of ['filters', 'sort', 'select'] as const) {
    const value = entry[key];
    if (value === undefined) continue;
    if (!isTableList) problems.push({ key, message: `${key} applies to table lists (endpoint: list with table, no sql)` });
    else if (!Array.isArray(value) || value.length === 0 || value.some((item) => typeof item !== 'string' || item === '')) {
      problems.push({ key, message: 'must be a list of column names' });
    }
  }
  const page = entry.page;
  if (page !== undefined && page !== true) {
    if (!isPlainObject(page)) problems.push({ key: 'page', message: 'must be true or { defaultLimit, maxLimit }' });
    else {
      for (const key of Object.keys(page)) {
        if (key !== 'defaultLimit' && key !== 'maxLimit') problems.push({ key: 'page', message: `unknown key page.${key} (page takes defaultLimit and maxLimit)` });
        else if (positiveInteger(page[key]) === undefined) problems.push({ key: 'page', message: `page.${key} must be a positive integer` });
      }
      const { defaultLimit, maxLimit } = page;
      if (positiveInteger(defaultLimit) !== undefined && positiveInteger(maxLimit) !== undefined && (defaultLimit as number) > (maxLimit as number)) {
        problems.push({ key: 'page', message: 'page.defaultLimit cannot be larger than page.maxLimit' });
      }
    }
  }
  const count = entry.count;
  if (count !== undefined) {
    if (!countModes.includes(count as CountMode)) problems.push({ key: 'count', message: `must be one of ${countModes.join(', ')}` });
    else if (count !== 'none' && page === undefined) problems.push({ key: 'count', message: 'count needs page: a list without pages answers every row, and total says how many' });
  }
  if (page !== undefined) {
    for (const name of templateVariables ?? []) {
      if (listQueryKeys.has(name)) problems.push({ key: 'sql', message: `{{${name}}} is a page parameter of a paged list: rename the template variable` });
    }
  }
  return problems;
}
