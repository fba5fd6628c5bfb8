import { Module } from '@nestjs/common';
import { DocumentJobsController } from './document-jobs.controller';
import { DocumentJobsService } from './document-jobs.service';
import { DocumentsController } from './documents.controller';
import { DocumentsService } from './documents.service';

@Module({
  controllers: [DocumentsController, DocumentJobsController],
  providers: [DocumentsService, DocumentJobsService],
  exports: [DocumentsService, DocumentJobsService],
})
export class DocumentsModule {}
