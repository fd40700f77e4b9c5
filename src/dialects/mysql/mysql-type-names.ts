/** The slice of a mysql2 column definition that names its type. */
export interface MysqlColumnDefinition {
  readonly name: string;
  /** The protocol's type code (MYSQL_TYPE_*). */
  readonly columnType: number;
  /** Collation id; 63 is `binary`. */
  readonly characterSet: number;
  readonly flags: number;
}

const BINARY_CHARSET = 63;
const UNSIGNED_FLAG = 32;
const ENUM_FLAG = 256;
const SET_FLAG = 2048;

/** SQL names of the protocol's type codes; the text types have a binary twin. */
const typeNames: Readonly<Record<number, string>> = {
  0: 'decimal',
  1: 'tinyint',
  2: 'smallint',
  3: 'int',
  4: 'float',
  5: 'double',
  6: 'null',
  7: 'timestamp',
  8: 'bigint',
  9: 'mediumint',
  10: 'date',
  11: 'time',
  12: 'datetime',
  13: 'year',
  14: 'date',
  15: 'varchar',
  16: 'bit',
  17: 'timestamp',
  18: 'datetime',
  19: 'time',
  245: 'json',
  246: 'decimal',
  247: 'enum',
  248: 'set',
  255: 'geometry',
};

/** Codes whose name depends on the collation: text, or bytes with the binary one. */
const textOrBytes: Readonly<Record<number, readonly [text: string, bytes: string]>> = {
  249: ['text', 'blob'],
  250: ['text', 'blob'],
  251: ['text', 'blob'],
  252: ['text', 'blob'],
  253: ['varchar', 'varbinary'],
  254: ['char', 'binary'],
};

const numericCodes = new Set([0, 1, 2, 3, 4, 5, 8, 9, 246]);

/**
 * The SQL type name of a result column (`int`, `varchar`, `decimal unsigned`). The protocol does
 * not tell TEXT from MEDIUMTEXT, nor a JSON column of MariaDB (a LONGTEXT) from text.
 */
export function mysqlTypeName(column: MysqlColumnDefinition): string {
  const { columnType, flags } = column;
  if (columnType === 254 && flags & ENUM_FLAG) return 'enum';
  if (columnType === 254 && flags & SET_FLAG) return 'set';
  const pair = textOrBytes[columnType];
  if (pair) return pair[column.characterSet === BINARY_CHARSET ? 1 : 0];
  const name = typeNames[columnType] ?? `type ${columnType}`;
  return numericCodes.has(columnType) && flags & UNSIGNED_FLAG ? `${name} unsigned` : name;
}
