import { createHmac, timingSafeEqual } from 'node:crypto';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { PartnerWebhookSettings } from '../partner.types';

export type Headers = Record<string, string | string[] | undefined>;
export type Verification = { ok: true } | { ok: false; reason: string };

const header = (headers: Headers, name: string): string | undefined => {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
};

const sameText = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/**
 * Checks a webhook against the partner's active secrets (any one may match: rotation). Reasons
 * name what is wrong, never a secret or a signature.
 */
export function verifyWebhook(
  settings: PartnerWebhookSettings,
  secrets: readonly string[],
  body: Buffer,
  headers: Headers,
): Verification {
  const early = verifyWebhookHeaders(settings, secrets, headers);
  if (!early.ok) {
    return { ok: false, reason: early.reason };
  }
  switch (settings.verification) {
    case 'standard-webhooks':
      return standardWebhooks(secrets, body, headers);
    case 'hmac':
      return hmac(settings, secrets, body, headers);
    case 'api-key':
      return { ok: true }; // the key is a header: decided above
  }
}

/** A refusal from the headers alone; `bySecret`: decided by comparing with the secrets, so a fresh read of them may change it. */
export type HeaderVerification = { ok: true } | { ok: false; reason: string; bySecret: boolean };

/**
 * What the headers alone decide, before a byte of the body is read: missing signature headers,
 * an unreadable or out-of-tolerance webhook-timestamp, a signature without the partner's prefix,
 * and for `api-key` the key itself. `ok` means only the body can tell (or, for `api-key`, verified).
 */
export function verifyWebhookHeaders(
  settings: PartnerWebhookSettings,
  secrets: readonly string[],
  headers: Headers,
): HeaderVerification {
  if (secrets.length === 0) {
    return { ok: false, reason: 'the partner has no active webhook secret', bySecret: true };
  }
  const problem =
    settings.verification === 'standard-webhooks'
      ? standardHeadersProblem(headers)
      : settings.verification === 'hmac'
        ? hmacHeaderProblem(settings, headers)
        : null;
  if (problem) {
    return { ok: false, reason: problem, bySecret: false };
  }
  if (settings.verification !== 'api-key') {
    return { ok: true };
  }
  const name = settings.apiKeyHeader ?? 'x-api-key';
  const given = header(headers, name);
  if (!given) {
    return { ok: false, reason: `missing ${name} header`, bySecret: false };
  }
  return secrets.some((s) => sameText(s, given))
    ? { ok: true }
    : { ok: false, reason: `${name} does not match an active secret`, bySecret: true };
}

/** The standardwebhooks package's tolerance for webhook-timestamp. */
const TOLERANCE_SECONDS = 5 * 60;

/** The Standard Webhooks headers are present and the timestamp is readable and within the package's tolerance. */
function standardHeadersProblem(headers: Headers): string | null {
  const missing = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].filter((h) => !header(headers, h));
  if (missing.length) {
    return `missing ${missing.join(', ')} header${missing.length > 1 ? 's' : ''}`;
  }
  // The package reads the timestamp with parseInt and calls an unreadable one a bad signature: say what it is.
  const timestamp = parseInt(header(headers, 'webhook-timestamp')!, 10);
  if (Number.isNaN(timestamp)) {
    return 'webhook-timestamp is not a Unix time in seconds';
  }
  // The package's own check and words, so the answer is the same with or without the body.
  const now = Math.floor(Date.now() / 1000);
  if (now - timestamp > TOLERANCE_SECONDS) {
    return 'Message timestamp too old (tolerance 5 minutes)';
  }
  if (timestamp > now + TOLERANCE_SECONDS) {
    return 'Message timestamp too new (tolerance 5 minutes)';
  }
  return null;
}

function hmacHeaderProblem(settings: PartnerWebhookSettings, headers: Headers): string | null {
  const name = settings.signatureHeader ?? 'x-signature';
  const given = header(headers, name)?.trim();
  if (!given) {
    return `missing ${name} header`;
  }
  if (settings.prefix && !given.startsWith(settings.prefix)) {
    return `${name} does not start with ${settings.prefix}`;
  }
  return null;
}

/**
 * The package's verifier (headers, 5-minute tolerance, several signatures, constant-time compare)
 * with the HMAC computed by node:crypto: the package signs with a pure-JS SHA-256, about half the
 * CPU of a webhook's whole ingest. Same bytes signed as the package: "id.timestamp.body", the body
 * as sent (the package signs its UTF-8 text, the same bytes for a UTF-8 body).
 */
export class NativeWebhook extends Webhook {
  private readonly hmacKey: Buffer;
  constructor(secret: string) {
    super(secret); // validates the secret (whsec_ + base64), throwing as the package does
    this.hmacKey = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  }
  override sign(msgId: string, timestamp: Date, payload: string | Buffer): string {
    // The body's own bytes: decoding them first would change a body that is not UTF-8, and no signature would match.
    return `v1,${createHmac('sha256', this.hmacKey)
      .update(`${msgId}.${Math.floor(timestamp.getTime() / 1000)}.`)
      .update(payload)
      .digest('base64')}`;
  }
}

/**
 * Verifiers by secret: each decodes its secret once. Bounded (a partner holds a few secrets at a
 * time); cleared when full rather than tracking use.
 */
const verifiers = new Map<string, Webhook>();
const MAX_VERIFIERS = 1000;
function verifierFor(secret: string): Webhook {
  let verifier = verifiers.get(secret);
  // Stryker disable next-line ConditionalExpression: equivalent, a new verifier verifies alike (a cache)
  if (!verifier) {
    // Stryker disable next-line ConditionalExpression,EqualityOperator,BlockStatement: equivalent, bounds memory
    if (verifiers.size >= MAX_VERIFIERS) {
      verifiers.clear();
    }
    verifier = new NativeWebhook(secret);
    verifiers.set(secret, verifier);
  }
  return verifier;
}

function standardWebhooks(secrets: readonly string[], body: Buffer, headers: Headers): Verification {
  const wanted = {
    'webhook-id': header(headers, 'webhook-id')!,
    'webhook-timestamp': header(headers, 'webhook-timestamp')!,
    'webhook-signature': header(headers, 'webhook-signature')!,
  };
  // Stryker disable next-line StringLiteral: equivalent, secrets are never empty here, so the loop sets it
  let reason = 'no signature matches an active secret';
  for (const secret of secrets) {
    try {
      // jsonParse off: the body is verified as bytes here; mapping parses it later.
      verifierFor(secret).verify(body, wanted, { jsonParse: false });
      return { ok: true };
    } catch (error) {
      // The library's messages name the problem (timestamp too old/new, no matching signature), never the secret.
      if (error instanceof WebhookVerificationError) {
        reason = /timestamp/i.test(error.message)
          ? `${error.message} (tolerance 5 minutes)`
          : 'no signature matches an active secret';
      } else {
        reason = 'a secret could not be used (not base64 / whsec_ format)';
      }
    }
  }
  return { ok: false, reason };
}

function hmac(
  settings: PartnerWebhookSettings,
  secrets: readonly string[],
  body: Buffer,
  headers: Headers,
): Verification {
  const name = settings.signatureHeader ?? 'x-signature';
  const given = header(headers, name)!
    .trim()
    .slice(settings.prefix?.length ?? 0);
  const algorithm = settings.algorithm ?? 'sha256';
  const encoding = settings.encoding ?? 'hex';
  const matches = secrets.some((secret) =>
    sameText(
      createHmac(algorithm, secret).update(body).digest(encoding),
      encoding === 'hex' ? given.toLowerCase() : given,
    ),
  );
  return matches
    ? { ok: true }
    : { ok: false, reason: `${name} does not match the ${algorithm} HMAC of the body under any active secret` };
}
