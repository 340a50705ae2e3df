/** Fleets of self-hosted instances and adaptive concurrency. */
export * from './fleet';
export * from '../concurrency/adaptive';
