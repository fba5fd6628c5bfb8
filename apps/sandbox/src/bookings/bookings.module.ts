import { Module } from '@nestjs/common';
import { DocumentsModule } from '../documents/documents.module';
import { GraphqlController } from '../graphql/graphql.controller';
import { BookingsExportController } from './bookings-export.controller';
import { BookingsService } from './bookings.service';

/** Bookings: the GraphQL endpoint (`/api/v1/graphql`) and the REST export (`/api/v2/bookings`). */
@Module({
  imports: [DocumentsModule],
  controllers: [GraphqlController, BookingsExportController],
  providers: [BookingsService],
  exports: [BookingsService],
})
export class BookingsModule {}
