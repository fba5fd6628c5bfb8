export * from './webhook-secret.repository';
export * from './mapping.repository';
export * from './webhook-verifier';
