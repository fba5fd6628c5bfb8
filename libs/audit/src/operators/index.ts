export * from './operator-role';
export * from './operator-token';
export * from './operator-token.repository';
export * from './operator-activity.repository';
