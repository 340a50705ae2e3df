/** Types of secrets.mjs for the TypeScript tests (test/reliability). */
export function findSecret(secret: string, where: { texts?: Record<string, string>; dirs?: string[]; skipDirs?: string[] }): { hits: string[]; searched: { texts: number; files: number; bytes: number } };
