/** English plural categories ("one" for 1, "other" for 0 and 2+), from the platform's CLDR data. */
const RULES = new Intl.PluralRules('en');

/** A count with its noun: "1 run", "2 runs", "0 runs"; `plural` for nouns that don't take an s. */
export function countOf(count: number, singular: string, plural = `${singular}s`): string {
  return `${count} ${RULES.select(count) === 'one' ? singular : plural}`;
}
