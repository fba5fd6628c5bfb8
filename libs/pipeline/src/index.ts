export * from './queues';
export * from './retry-policy';
export * from './redis-connection';
export * from './message-queues';
