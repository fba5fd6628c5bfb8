import { Injectable } from '@nestjs/common';
import {
  PARTNER_ID_PATTERN,
  PartnerMappingRepository,
  PartnerProfile,
  PartnerRepository,
  WebhookSecretRepository,
} from '@dockbridge/partners';

export interface WebhookEndpoint {
  partner: PartnerProfile | null;
  secrets: { secret: string; expiresAt: Date | null }[];
  mappingVersion: number | null;
}

/** How long an endpoint's profile, secrets and mapping version are reused between requests. */
export const ENDPOINT_TTL_MS = 1000;

/**
 * What the webhook hot path needs of a partner, read once a second instead of three queries per
 * request. Expiries are checked at use, and a failed verification reads afresh before refusing,
 * so a new secret works at once and an expired one stops at once; a revoked one within a second.
 */
@Injectable()
export class WebhookEndpoints {
  private readonly cache = new Map<string, { endpoint: Promise<WebhookEndpoint>; at: number }>();

  constructor(
    private readonly partners: PartnerRepository,
    private readonly secrets: WebhookSecretRepository,
    private readonly mappings: PartnerMappingRepository,
  ) {}

  get(partnerId: string, fresh = false): Promise<WebhookEndpoint> {
    const cached = this.cache.get(partnerId);
    if (!fresh && cached && Date.now() - cached.at < ENDPOINT_TTL_MS) {
      return cached.endpoint;
    }
    const endpoint = this.load(partnerId);
    this.cache.set(partnerId, { endpoint, at: Date.now() });
    // Only known partners stay cached: a flood of made-up ids must not grow memory.
    endpoint.then(
      (e) => !e.partner && this.cache.delete(partnerId),
      () => this.cache.delete(partnerId),
    );
    return endpoint;
  }

  /** The secrets that verify at this moment. */
  static usable(endpoint: WebhookEndpoint, now = Date.now()): string[] {
    return endpoint.secrets.filter((s) => !s.expiresAt || s.expiresAt.getTime() > now).map((s) => s.secret);
  }

  private async load(partnerId: string): Promise<WebhookEndpoint> {
    // Not a partner id (a NUL, say, which Postgres refuses outright): no endpoint, without a query.
    if (!PARTNER_ID_PATTERN.test(partnerId)) {
      return { partner: null, secrets: [], mappingVersion: null };
    }
    const [partner, secrets, mapping] = await Promise.all([
      this.partners.findById(partnerId),
      this.secrets.activeSecretsWithExpiry(partnerId),
      this.mappings.current(partnerId),
    ]);
    return { partner, secrets, mappingVersion: mapping?.version ?? null };
  }
}
