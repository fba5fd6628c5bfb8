export * from './canonical-operation';
export * from './x12';
