export * from './edi-types';
export * from './edi-fields';
export * from './parties';
export * from './dates';
export * from './document-builder';
export * from './purchase-order.mapper';
export * from './ship-notice.mapper';
export * from './edi-mapping';
