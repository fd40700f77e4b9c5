import { SqlResourceError } from '../../src';
import { parseOrder } from '../../src/filters';
import { Cursors } from '../../src/lists/cursor';
import { pageLimit, pageOffset, queryFilter, queryOrder, querySelect } from '../../src/lists/query';

const allowed = new Set(['status', 'price', 'name']);

function refusal(work: () => unknown): { code: string; field?: string; message: string } {
  try {
    work();
  } catch (error) {
    if (!(error instanceof SqlResourceError)) throw error;
    return { code: error.code, field: error.field, message: error.message };
  }
  throw new Error('expected a refusal');
}

describe('a list query string read into filter objects', () => {
  it.each([
    ['eq.open', { eq: 'open' }],
    ['neq.', { neq: '' }],
    ['gte.2', { gte: '2' }],
    ['in.()', { in: [] }],
    ['in.(a,b)', { in: ['a', 'b'] }],
    ['in.(a,"b,c")', { in: ['a', 'b,c'] }],
    ['in.("say \\"hi\\"",x)', { in: ['say "hi"', 'x'] }],
    ['in.(a,)', { in: ['a', ''] }],
    ['like.*saw*', { like: '%saw%' }],
    ['ilike.50\\%_', { ilike: '50\\%_' }],
    ['is.null', { is: null }],
    ['is.true', { is: true }],
    ['eq.🍎 Äpfel', { eq: '🍎 Äpfel' }],
    ['eq.a.b', { eq: 'a.b' }],
  ])('reads %s', (text, operators) => {
    expect(queryFilter({ status: text }, allowed)).toEqual({ status: operators });
  });

  it('combines a column given twice, each operator once', () => {
    expect(queryFilter({ price: ['gte.2', 'lt.9'] }, allowed)).toEqual({ price: { gte: '2', lt: '9' } });
    expect(refusal(() => queryFilter({ price: ['gte.2', 'gte.3'] }, allowed))).toEqual({ code: 'INVALID_FILTER', field: 'price', message: "filter 'price': gives the operator gte twice" });
  });

  it.each([
    ['xx.open', "filter 'status': must be operator.value, the operator one of eq, neq, lt, lte, gt, gte, in, like, ilike, is"],
    ['open', "filter 'status': must be operator.value, the operator one of eq, neq, lt, lte, gt, gte, in, like, ilike, is"],
    ['is.maybe', "filter 'status': is takes null, true or false"],
    ['in.a,b', "filter 'status': in takes a list in parentheses: in.(a,b)"],
    ['in.("a,b)', "filter 'status': in: a quoted value is not closed"],
    ['in.("a"b)', "filter 'status': in: a quoted value must be followed by a comma"],
  ])('refuses %s naming the column, never the value', (text, message) => {
    expect(refusal(() => queryFilter({ status: text }, allowed))).toEqual({ code: 'INVALID_FILTER', field: 'status', message });
  });

  it('refuses a column the list does not filter on, and does not repeat a name that is no identifier', () => {
    expect(refusal(() => queryFilter({ secret: 'eq.1' }, allowed))).toEqual({ code: 'INVALID_FILTER', field: 'secret', message: "filter 'secret': this list filters only on status, price, name" });
    expect(refusal(() => queryFilter({ '<script>': 'eq.1' }, allowed))).toEqual({ code: 'INVALID_FILTER', field: undefined, message: 'filter a query parameter: this list filters only on status, price, name' });
  });

  it('leaves the page parameters to the page', () => {
    expect(queryFilter({ limit: '5', offset: '1', after: 'x', order: 'price', select: 'id' }, allowed)).toEqual({});
  });
});

describe('order, select, limit and offset of a list', () => {
  it('reads an order on the sort columns only', () => {
    expect(queryOrder({ order: 'price.desc,name' }, new Set(['price', 'name']))).toEqual([
      { column: 'price', descending: true },
      { column: 'name', descending: false },
    ]);
    expect(refusal(() => queryOrder({ order: 'name;drop table x' }, new Set(['name'])))).toMatchObject({ code: 'INVALID_PARAMETER', field: 'order' });
    expect(refusal(() => queryOrder({ order: 'name.sideways' }, new Set(['name'])))).toMatchObject({ code: 'INVALID_PARAMETER', field: 'order' });
    expect(refusal(() => queryOrder({ order: ['name', 'price'] }, new Set(['name'])))).toEqual({ code: 'INVALID_PARAMETER', field: 'order', message: "query parameter 'order' is given more than once" });
  });

  it('picks columns among those offered; * is all of them', () => {
    expect(querySelect({ select: 'id,name,id' }, ['id', 'name', 'price'])).toEqual(['id', 'name']);
    expect(querySelect({ select: '*' }, ['id', 'name'])).toEqual(['id', 'name']);
    expect(querySelect({}, ['id'])).toEqual(['id']);
    expect(refusal(() => querySelect({ select: '*,password' }, ['id']))).toMatchObject({ code: 'INVALID_PARAMETER', field: 'select' });
    expect(refusal(() => querySelect({ select: 'id,' }, ['id']))).toMatchObject({ code: 'INVALID_PARAMETER', field: 'select' });
  });

  const page = { defaultLimit: 10, maxLimit: 50 };

  it.each([
    [{}, 10],
    [{ limit: '7' }, 7],
    [{ limit: '99999999' }, 50],
    [{ limit: '9007199254740993' }, 50],
  ])('takes limit %j as %d', (query, limit) => {
    expect(pageLimit(query, page)).toBe(limit);
  });

  it.each(['0', '-1', '1.5', '1e3', ' 7', '+7', '0x10', '-9007199254740993', ''])('refuses limit %j', (limit) => {
    expect(refusal(() => pageLimit({ limit }, page))).toMatchObject({ code: 'INVALID_PARAMETER', field: 'limit' });
  });

  it('takes an offset of 0 or more, written in decimal digits', () => {
    expect(pageOffset({ offset: '0' })).toBe(0);
    expect(pageOffset({})).toBeUndefined();
    for (const offset of ['-5', '1e3', '2.0', '9007199254740993']) expect(refusal(() => pageOffset({ offset }))).toMatchObject({ code: 'INVALID_PARAMETER', field: 'offset' });
  });
});

describe('keyset cursors', () => {
  const key = Buffer.from('a-cursor-key-of-at-least-thirty-two-bytes');
  const order = [
    { column: 'created', descending: true },
    { column: 'id', descending: false },
  ];
  const row = { created: 'ab,c', id: 9007199254740993n, name: 'x' };

  it('gives back the order values of the row it was made from, a bigint as its digits', () => {
    const cursors = new Cursors(key, 'GET /items');
    expect(cursors.read(cursors.after(row, order), order)).toEqual({ created: 'ab,c', id: '9007199254740993' });
  });

  it('refuses a cursor altered, cut short, from another endpoint, another order or another key', () => {
    const cursor = new Cursors(key, 'GET /items').after(row, order);
    const [payload, signature] = cursor.split('.');
    const flip = (text: string, at: number): string => text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    const attempts = [
      () => new Cursors(key, 'GET /items').read(`${flip(payload, 3)}.${signature}`, order),
      () => new Cursors(key, 'GET /items').read(`${payload}.${flip(signature, 5)}`, order),
      () => new Cursors(key, 'GET /items').read(cursor.slice(0, -3), order),
      () => new Cursors(key, 'GET /items').read(payload, order),
      () => new Cursors(key, 'GET /other').read(cursor, order),
      () => new Cursors(key, 'GET /items').read(cursor, [order[1]]),
      () => new Cursors(Buffer.from('another-key-of-at-least-thirty-two-bytes'), 'GET /items').read(cursor, order),
      () => new Cursors(key, 'GET /items').read('x'.repeat(3000), order),
    ];
    for (const attempt of attempts) expect(refusal(attempt)).toMatchObject({ code: 'INVALID_PARAMETER', field: 'after' });
  });
});

describe('an order written for code', () => {
  it('takes spaces after commas, and OrderTerm objects', () => {
    expect(parseOrder('price.desc, id')).toEqual([
      { column: 'price', descending: true },
      { column: 'id', descending: false },
    ]);
    expect(parseOrder([{ column: 'price', descending: true }, 'id'])).toEqual([
      { column: 'price', descending: true },
      { column: 'id', descending: false },
    ]);
  });
});
