export * from './webhook-secret.repository';
export * from './mapping.repository';
export * from './webhook-verifier';
export * from './secret-box';
export * from './bounded-jsonata';
