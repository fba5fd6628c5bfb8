export * from './document.types';
export * from './document-input.dto';
