import { Module } from '@nestjs/common';
import { DocumentsModule } from '../documents/documents.module';
import { ControlsController } from './controls.controller';

@Module({ imports: [DocumentsModule], controllers: [ControlsController] })
export class ControlsModule {}
