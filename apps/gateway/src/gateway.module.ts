import { Module } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { AdminMessagesController } from './admin/admin-messages.controller';
import { AdminDryRunsController } from './admin/admin-dry-runs.controller';
import { AdminOperatorsController } from './admin/admin-operators.controller';
import { AdminStatsController } from './admin/admin-stats.controller';
import { AdminPartnersController } from './admin/admin-partners.controller';
import { OperatorRoleGuard } from './auth/operator-role.guard';
import { PartnerApiKeyGuard } from './auth/partner-api-key.guard';
import { EdiController } from './edi/edi.controller';
import { HealthController } from './health/health.controller';
import { WebhooksController } from './webhooks/webhooks.controller';
import { HttpErrorFilter } from './http-error.filter';
import { MessagesController } from './messages/messages.controller';
import { MetricsController } from './metrics/metrics.controller';
import { PartnerImport } from './partner-import';
import { SftpServer } from './sftp/sftp.server';
import { YoungGenerationCollector } from './memory/young-generation';

/** The gateway's HTTP surface: ingress, admin API, health and metrics. Needs CoreModule. */
@Module({
  imports: [TerminusModule],
  controllers: [
    MessagesController,
    EdiController,
    WebhooksController,
    AdminMessagesController,
    AdminPartnersController,
    AdminOperatorsController,
    AdminDryRunsController,
    AdminStatsController,
    HealthController,
    MetricsController,
  ],
  providers: [
    PartnerApiKeyGuard,
    OperatorRoleGuard,
    PartnerImport,
    SftpServer,
    { provide: YoungGenerationCollector, useFactory: () => new YoungGenerationCollector() },
    { provide: APP_FILTER, useClass: HttpErrorFilter },
  ],
})
export class GatewayModule {}
