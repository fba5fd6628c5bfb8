export * from './canonical-operation';
