/** Bench settings from the environment (parts 2 and 3; part 1 reads its own in run.ts). */

export function intFromEnv(name: string, fallback: number): number {
  const value = process.env[name];
  if (value === undefined || value === '') return fallback;
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new Error(`${name} must be a positive integer`);
  return number;
}

export function listFromEnv<T extends string>(name: string, allowed: readonly T[]): T[] {
  const value = process.env[name];
  if (value === undefined || value === '') return [...allowed];
  const picked = value.split(',').map((item) => item.trim() as T);
  for (const item of picked) if (!allowed.includes(item)) throw new Error(`${name}: '${item}' is not one of ${allowed.join(', ')}`);
  return picked;
}
