import { GraphQLError, GraphQLScalarType, Kind, ValueNode } from 'graphql';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A zone is required so that a time never depends on the sandbox's local time zone. */
const TIMESTAMP_PATTERN = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

function stringLiteral(name: string, ast: ValueNode): string {
  if (ast.kind !== Kind.STRING) {
    throw new GraphQLError(`${name} must be a string`);
  }
  return ast.value;
}

function parseUuid(value: unknown): string {
  if (typeof value !== 'string' || !UUID_PATTERN.test(value)) {
    throw new GraphQLError(`UUID cannot represent ${JSON.stringify(value)}: expected 8-4-4-4-12 hexadecimal digits`);
  }
  return value.toLowerCase();
}

/** Timestamps travel inside the sandbox as ISO 8601 UTC strings. */
export function parseTimestamp(value: unknown): string {
  if (typeof value !== 'string' || !TIMESTAMP_PATTERN.test(value) || Number.isNaN(Date.parse(value))) {
    throw new GraphQLError(
      `Timestamp cannot represent ${JSON.stringify(value)}: expected ISO 8601 with a zone, e.g. 2026-03-01T08:00:00Z`,
    );
  }
  return new Date(value).toISOString();
}

export const UUIDScalar = new GraphQLScalarType({
  name: 'UUID',
  serialize: (value) => String(value),
  parseValue: parseUuid,
  parseLiteral: (ast) => parseUuid(stringLiteral('UUID', ast)),
});

export const TimestampScalar = new GraphQLScalarType({
  name: 'Timestamp',
  serialize: (value) => new Date(value as string | Date).toISOString(),
  parseValue: parseTimestamp,
  parseLiteral: (ast) => parseTimestamp(stringLiteral('Timestamp', ast)),
});

export const VoidScalar = new GraphQLScalarType({
  name: 'Void',
  serialize: () => null,
  parseValue: () => null,
  parseLiteral: () => null,
});
