import { distance } from 'fastest-levenshtein';

/**
 * The candidate a mistyped name most likely meant: one that differs only in case, else the
 * nearest by edit distance when it is close enough for the length (`tabel` → `table`,
 * `prot` → `port`); undefined when nothing is that close.
 */
export function closestName(name: string, candidates: Iterable<string>): string | undefined {
  const list = [...candidates];
  const sameLetters = list.find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  if (sameLetters !== undefined) return sameLetters;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of list) {
    const apart = distance(name.toLowerCase(), candidate.toLowerCase());
    if (apart < bestDistance) [best, bestDistance] = [candidate, apart];
  }
  // Two edits (a swap of neighbours counts two) for short names, a third of the letters for long ones.
  return bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/** ` (did you mean 'x'?)`, or nothing. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const closest = closestName(name, candidates);
  return closest === undefined ? '' : ` (did you mean '${closest}'?)`;
}
