import { Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import { AppConfig } from '@dockbridge/config';
import { importPartners, PartnerMappingRepository, PartnerRepository, SftpCredentialRepository, WebhookSecretRepository } from '@dockbridge/partners';

/**
 * Configuration as code: `config/partners/*.yaml` is imported at start-up; a bad file is reported,
 * not fatal. Webhook secrets still stored in plain text are encrypted first.
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

  async onApplicationBootstrap(): Promise<void> {
    // Webhook secrets stored before encryption at rest are sealed once (a no-op afterwards).
    const sealed = await this.secrets.sealPlaintext();
    if (sealed) this.logger.log({ msg: 'webhook secrets encrypted at rest', count: sealed });
    const accounts = this.config.platform.accounts.map((a) => a.name);
    const result = await importPartners(this.partners, this.config.gateway.partnersDir, { env: process.env, platformAccounts: accounts, mappings: this.mappings, secrets: this.secrets, sftp: this.sftp });
    for (const problem of result.problems) this.logger.warn({ msg: 'partner file problem', ...problem });
    if (result.imported.length) this.logger.log({ msg: 'partner profiles imported', partners: result.imported });
  }
}
