export * from './sftp-credential.errors';
export * from './sftp-password';
export * from './ssh-public-key';
export * from './sftp-credential.repository';
