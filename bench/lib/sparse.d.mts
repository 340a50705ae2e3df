/** Types of sparse.mjs for the TypeScript tests (test/reliability). */
export function sparseMp4(file: string, bytes: number): void;
