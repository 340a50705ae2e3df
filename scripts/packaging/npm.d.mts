/** A packed tarball of one published package. */
export interface Packed { name: string; version: string; file: string; size: number; entryCount: number }
export function packAll(dest: string, root?: string): Packed[];
