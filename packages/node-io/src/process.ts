/**
 * Whether a process with this id exists on this machine, for telling a lock
 * or scratch folder left by a dead process from one still in use. EPERM means
 * it exists but belongs to another user: alive.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
