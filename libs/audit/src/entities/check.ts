/** SQL `column IN (...)` for a CHECK constraint over a closed list of values. */
export const oneOf = (column: string, values: readonly string[]): string =>
  `${column} IN (${values.map((v) => `'${v}'`).join(', ')})`;
