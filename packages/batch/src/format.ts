/** Human-readable numbers for terminals and reports: core's, so every host's read alike. */
export { formatBytes, formatDuration } from '@pfc/core';
