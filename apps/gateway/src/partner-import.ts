import { DomainError } from '@dockbridge/audit';
import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '@dockbridge/config';
import {
  applyPartnerFile,
  ImportPartnersOptions,
  importPartners,
  loadPartnerFiles,
  PartnerMappingRepository,
  PartnerProfile,
  PartnerRepository,
  SftpCredentialRepository,
  WebhookSecretRepository,
} from '@dockbridge/partners';

/** Why a partner cannot be given back to a file. */
export class NoPartnerFileError extends DomainError {
  readonly kind = 'conflict';
  override summary = 'No partner file';
  constructor(
    readonly partnerId: string,
    readonly dir: string,
  ) {
    super(`no valid file in ${dir} defines partner ${partnerId}; nothing to give it back to`);
    this.name = 'NoPartnerFileError';
  }
}

/**
 * Configuration as code: `config/partners/*.yaml` is imported at start-up; a bad file is reported,
 * not fatal. A partner the admin API owns is never changed by its file: the conflict is logged
 * (and shown on the partner, `conflict`). An unchanged file writes nothing. Webhook secrets still
 * stored in plain text are encrypted first.
 */
@Injectable()
export class PartnerImport implements OnApplicationBootstrap {
  private readonly logger = new Logger('Partners');

  constructor(
    private readonly config: AppConfig,
    private readonly partners: PartnerRepository,
    private readonly mappings: PartnerMappingRepository,
    private readonly secrets: WebhookSecretRepository,
    private readonly sftp: SftpCredentialRepository,
  ) {}

  private options(): ImportPartnersOptions {
    const accounts = this.config.platform.accounts.map((a) => a.name);
    return {
      env: process.env,
      platformAccounts: accounts,
      mappings: this.mappings,
      secrets: this.secrets,
      sftp: this.sftp,
    };
  }

  async onApplicationBootstrap(): Promise<void> {
    // Webhook secrets stored before encryption at rest are sealed once (a no-op afterwards).
    const sealed = await this.secrets.sealPlaintext();
    if (sealed) {
      this.logger.log({ msg: 'webhook secrets encrypted at rest', count: sealed });
    }
    const result = await importPartners(this.partners, this.config.gateway.partnersDir, this.options());
    for (const problem of result.problems) {
      this.logger.warn({ msg: 'partner file problem', ...problem });
    }
    for (const conflict of result.conflicts) {
      this.logger.warn({ msg: 'partner file ignored: the admin API owns the partner', ...conflict });
    }
    if (result.imported.length) {
      this.logger.log({ msg: 'partner profiles imported', partners: result.imported });
    }
    if (result.unchanged.length) {
      this.logger.log({ msg: 'partner files unchanged', partners: result.unchanged });
    }
  }

  /**
   * Gives an API-owned partner back to its file (`POST /v1/admin/partners/:id/release`) and applies
   * the file now: its profile, its mapping (a new version unless it is the current one) and its
   * credentials. Null when the partner does not exist; NoPartnerFileError when no file defines it.
   */
  async release(id: string): Promise<PartnerProfile | null> {
    if (!(await this.partners.findById(id))) {
      return null;
    }
    const options = this.options();
    const entry = loadPartnerFiles(this.config.gateway.partnersDir, options).profiles.find((p) => p.profile.id === id);
    if (!entry) {
      throw new NoPartnerFileError(id, this.config.gateway.partnersDir);
    }
    await this.partners.release(id, entry.file);
    const applied = await applyPartnerFile(this.partners, entry, options, true);
    for (const problem of applied.problems) {
      this.logger.warn({ msg: 'partner file problem', ...problem });
    }
    this.logger.log({ msg: 'partner given back to its file', partner: id, file: entry.file });
    return this.partners.findById(id);
  }
}
