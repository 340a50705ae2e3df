export * from './client';
export * from './options';
export * from './uploads';
export * from './jobs';
export * from './wait';
export * from './presets';
export * from './input';
export { correctOnWebApi } from './correct';
export { LOST_JOB_ATTEMPTS, type LostJobRetryInfo } from './lost-jobs';
