export * from './document.types';
export * from './document-input.dto';
export * from './document-input.schema';
export * from './booking.types';
export * from './platform-error';
export * from './platform.client';
export * from './platform-accounts';
