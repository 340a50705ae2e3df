/** On a failed e2e test: a screenshot of the workbench and the extension's log, to see what the user would have seen. */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { TestContext } from 'vitest';
import { REPO_DIR, type Session } from './session';

export async function diagnose(ctx: TestContext, s: Session | undefined): Promise<void> {
  if (ctx.task.result?.state !== 'fail' || !s) return;
  const shot = join(REPO_DIR, 'test-results', `vscode-${ctx.task.name.replace(/\W+/g, '-').slice(0, 60)}.png`);
  mkdirSync(join(REPO_DIR, 'test-results'), { recursive: true });
  await s.page.screenshot({ path: shot }).catch(() => undefined);
  console.error(`screenshot: ${shot}\n--- Perfectly Clear output channel ---\n${s.server.outputChannel()}`);
}
