import { Module } from '@nestjs/common';

/** Placeholder until the GraphQL bookings API lands. */
@Module({})
export class BookingsModule {}
