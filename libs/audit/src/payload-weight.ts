/**
 * What a JSON text holds once parsed, in bytes of text at ~5x of heap (what a worker's payload
 * budget counts): a value is ~110 bytes of heap, 22 bytes at the budget's 5x (the 25,000-document
 * message holds 900,000 values in 15 MB: its bytes and values agree).
 */
export const BUDGET_BYTES_PER_VALUE = 22;

/**
 * At most how many values a JSON text holds, without parsing it: a container is itself and at most
 * one member no comma precedes, every other value follows a comma (brackets and commas inside
 * strings are counted too, which only raises the bound). One pass, ~1 ns a character.
 */
export function valuesAtMost(text: string): number {
  let values = 1;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x2c /* , */) {
      values += 1;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      values += 2;
    }
  }
  return values;
}

/**
 * What a JSON text weighs parsed: its length, or its values when they weigh more (`{},` is 3 bytes
 * of text and ~60 of heap: a text of small values holds more than its length tells).
 */
export const parsedWeightOf = (text: string): number =>
  Math.max(text.length, valuesAtMost(text) * BUDGET_BYTES_PER_VALUE);
