#!/usr/bin/env node
// Installs what the host end-to-end tests need and is missing: Debian's
// Chromium (for Playwright) via apt-get, when this machine allows it.
import { execSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CHROMIUM = '/usr/bin/chromium';

function sh(cmd) {
  console.log(`$ ${cmd}`);
  execSync(cmd, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
}

if (!existsSync(CHROMIUM)) {
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  const sudo = root ? '' : 'sudo ';
  sh(`${sudo}apt-get update -qq`);
  sh(`${sudo}apt-get install -y -qq chromium fonts-dejavu-core`);
}
console.log(`chromium: ${existsSync(CHROMIUM) ? CHROMIUM : 'missing'}`);

// The VS Code end-to-end test needs a real VS Code: code-server and the Debian
// packages its install needs (plugins/vscode/scripts/setup-e2e.mjs, idempotent).
const { setupCodeServer } = await import('../../plugins/vscode/scripts/setup-e2e.mjs');
console.log(`code-server: ${setupCodeServer()}`);
