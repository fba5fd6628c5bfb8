import { Injectable } from '@nestjs/common';
import {
  ActivityPage,
  NewOperatorActivity,
  OperatorActivityRepository,
  OperatorIdentity,
  OperatorRole,
  OperatorToken,
  OperatorTokenRepository,
} from '@dockbridge/audit';
import { AppConfig } from '@dockbridge/config';
import { BearerToken } from './bearer-token';

/** The bootstrap ADMIN_TOKEN's holder: shared, so its replays may still name their operator themselves. */
export const BOOTSTRAP_ADMIN: OperatorIdentity = { name: 'admin', role: 'admin', tokenId: null };

/** What identifying a presented admin credential found. */
export type AdminAccess = { identity: OperatorIdentity } | { refused: 'disabled' | 'invalid' };

/** `operator:<name>`: how an operator appears on replays, events and the activity log. */
export const actorOf = (identity: OperatorIdentity) => `operator:${identity.name}` as const;

/**
 * Who may use the admin API, and the log of what they changed. The bootstrap ADMIN_TOKEN is an admin;
 * named tokens (issued by an admin, stored hashed) carry a role each and are checked on every call,
 * so a revocation or an expiry holds from the next request.
 */
@Injectable()
export class OperatorAccess {
  private readonly bootstrap: BearerToken;

  constructor(
    config: AppConfig,
    private readonly tokens: OperatorTokenRepository,
    private readonly activity: OperatorActivityRepository,
  ) {
    this.bootstrap = new BearerToken(config.gateway.adminToken);
  }

  async identify(presented: string | undefined): Promise<AdminAccess> {
    if (this.bootstrap.matches(presented)) {
      return { identity: BOOTSTRAP_ADMIN };
    }
    const identity = presented ? await this.tokens.identify(presented) : null;
    if (identity) {
      return { identity };
    }
    // Without ADMIN_TOKEN nobody can have issued a named token through the API, so say how to turn it on.
    return { refused: this.bootstrap.enabled ? 'invalid' : 'disabled' };
  }

  issue(
    by: OperatorIdentity,
    input: { name: string; role: OperatorRole; expiresAt?: Date | null },
  ): Promise<{ token: string; operator: OperatorToken }> {
    return this.tokens.create({ ...input, createdBy: actorOf(by) });
  }

  list(): Promise<OperatorToken[]> {
    return this.tokens.list();
  }

  revoke(id: string): Promise<OperatorToken | null> {
    return this.tokens.revoke(id);
  }

  /** Appends a change to the activity log, as done by `by`. */
  record(by: OperatorIdentity, action: string, target: string, summary: string): Promise<void> {
    const entry: NewOperatorActivity = { actor: actorOf(by), role: by.role, action, target, summary };
    return this.activity.record(entry);
  }

  activityPage(query: { limit: number; cursor?: string; target?: string }): Promise<ActivityPage> {
    return this.activity.page(query);
  }
}
