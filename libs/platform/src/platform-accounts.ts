import { PlatformClient } from './platform.client';

export interface PlatformAccount {
  name: string;
  baseUrl?: string;
  token?: string;
  organisationIds: string[];
}

export interface PlatformAccountsOptions {
  baseUrl: string;
  /** The default account's token: used for organisations no named account lists. */
  token?: string;
  timeoutMs: number;
  accounts: PlatformAccount[];
}

/** Which token acts for which organisation: one client per platform account, chosen by organisation id. */
export class PlatformAccounts {
  private readonly byOrganisation = new Map<string, PlatformClient>();
  private readonly byName = new Map<string, PlatformClient>();
  private readonly fallback?: PlatformClient;

  constructor(options: PlatformAccountsOptions) {
    const make = (baseUrl: string, token: string) =>
      new PlatformClient({ baseUrl, token, timeoutMs: options.timeoutMs });
    if (options.token) {
      this.fallback = make(options.baseUrl, options.token);
    }
    for (const account of options.accounts) {
      if (!account.token) {
        continue;
      }
      const client = make(account.baseUrl ?? options.baseUrl, account.token);
      this.byName.set(account.name, client);
      for (const id of account.organisationIds) {
        this.byOrganisation.set(id, client);
      }
    }
  }

  /** The client for an organisation: its account's, else the named account, else the default; undefined when none is configured. */
  clientFor(organisationId: string, accountName?: string | null): PlatformClient | undefined {
    return (
      this.byOrganisation.get(organisationId) ??
      (accountName ? this.byName.get(accountName) : undefined) ??
      this.fallback
    );
  }

  async close(): Promise<void> {
    const clients = new Set([this.fallback, ...this.byName.values()]);
    await Promise.all([...clients].flatMap((client) => (client ? [client.close()] : [])));
  }

  /** Any configured client (health checks). */
  any(): PlatformClient | undefined {
    return this.fallback ?? this.byName.values().next().value;
  }
}
