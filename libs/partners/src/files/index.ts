export * from './partner-file.types';
export * from './partner-file.errors';
export * from './partner-file.repository';
