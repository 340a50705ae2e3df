/**
 * Entry point. Activation is lazy (on the first Perfectly Clear command) and
 * does nothing slow: it registers commands and creates the Output channel and
 * the status-bar item. The time it takes is logged for the benchmark.
 */
// Must stay the first import (see load-start.ts).
import { loadStart } from './load-start';
import * as vscode from 'vscode';
import { Commands } from './commands';
import { Log } from './log';
import type { VscodeApi } from './vscode-api';

let commands: Commands | undefined;

export function activate(context: vscode.ExtensionContext): void {
  const t0 = performance.now();
  const api: VscodeApi = vscode;
  const channel = vscode.window.createOutputChannel('Perfectly Clear', { log: true });
  const status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
  context.subscriptions.push(channel, status);
  const log = new Log(channel);
  commands = new Commands(api, context, log, status);
  commands.register();
  const now = performance.now();
  log.line(`activated in ${(now - loadStart).toFixed(1)} ms (bundle evaluated to activate() called: ${(t0 - loadStart).toFixed(1)} ms, activate(): ${(now - t0).toFixed(1)} ms)`);
}

/** Stops the embedded emulator; VS Code waits for the returned promise. */
export function deactivate(): Promise<void> | undefined {
  const c = commands;
  commands = undefined;
  return c?.dispose();
}
