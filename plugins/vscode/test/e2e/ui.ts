/**
 * Driving VS Code's workbench (in code-server) the way a user does: Explorer
 * rows, context menus, quick picks, notifications. Every wait is bounded and
 * waits for a condition, never a fixed time.
 */
import type { Locator, Page } from 'playwright-core';

/** An Explorer row by its file or folder name. */
export function explorerRow(page: Page, name: string): Locator {
  return page.locator('.explorer-folders-view').getByRole('treeitem', { name, exact: true });
}

/** Wait for the workbench and its Explorer to show the workspace's root entries. */
export async function waitForWorkbench(page: Page, firstEntry: string): Promise<void> {
  await page.locator('.monaco-workbench').waitFor({ state: 'visible', timeout: 120_000 });
  // The Explorer view may start collapsed behind the welcome state; focus it.
  const row = explorerRow(page, firstEntry);
  if (!(await row.isVisible().catch(() => false))) {
    await page.keyboard.press('Control+Shift+E');
  }
  await row.waitFor({ state: 'visible', timeout: 120_000 });
}

/**
 * Of the Explorer rows of that name (the same subfolder in two folders of a
 * multi-root workspace), the one highest (`first`) or lowest (`last`) in the
 * tree: by the list's `data-index`, as the DOM does not keep rows in tree order.
 */
export async function explorerRowAt(page: Page, name: string, which: 'first' | 'last'): Promise<Locator> {
  await explorerRow(page, name).first().waitFor({ state: 'visible', timeout: 30_000 });
  const at = await explorerRow(page, name).evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-index'))));
  const index = which === 'first' ? Math.min(...at) : Math.max(...at);
  return page.locator(`.explorer-folders-view [role="treeitem"][data-index="${index}"]`);
}

/**
 * Expand a folder row (clicking a collapsed folder opens it); `which` of several rows of that name.
 * The Explorer may expand a row itself (a multi-root workspace's folders) between our look and our
 * click, which then collapses it: the row is looked at again and clicked again, a bounded number of times.
 */
export async function expand(page: Page, name: string, which?: 'first' | 'last'): Promise<void> {
  const row = which ? await explorerRowAt(page, name, which) : explorerRow(page, name);
  const expanded = row.and(page.locator('[aria-expanded="true"]'));
  for (let attempt = 1; attempt <= 5; attempt++) {
    if ((await row.getAttribute('aria-expanded')) !== 'true') await row.click();
    if (await expanded.waitFor({ state: 'visible', timeout: 6_000 }).then(() => true, () => false)) return;
  }
  throw new Error(`the Explorer row "${name}" did not stay expanded`);
}

/**
 * Expand `which` folder row of that name until `child` shows below it. The row is found by its place in the
 * list (`explorerRowAt`), and the Explorer may still be settling (rows added, folders expanded by itself), so
 * the place can belong to another row by the time it is clicked: look again, a bounded number of times.
 */
export async function expandToShow(page: Page, name: string, which: 'first' | 'last', child: string): Promise<void> {
  for (let attempt = 1; attempt <= 5; attempt++) {
    await expand(page, name, which);
    if (await explorerRow(page, child).first().waitFor({ state: 'visible', timeout: 5_000 }).then(() => true, () => false)) return;
  }
  throw new Error(`"${child}" did not show below the ${which} "${name}" row`);
}

/**
 * Right-click `target` and choose `item` from the context menu. The Explorer
 * draws before the extension host has registered the extension's menu
 * contributions, so the item can be missing at first: close the menu and
 * try again, a bounded number of times. Resolves the time the item was clicked.
 */
export async function contextMenu(page: Page, target: Locator, item: string, attempts = 20, onOpen?: () => Promise<unknown>): Promise<number> {
  for (let i = 1; ; i++) {
    await target.click({ button: 'right' });
    const menu = page.locator('.monaco-menu').first();
    // A right-click can be lost while the workbench moves the focus (an editor that just opened, a palette
    // closing, the Explorer redrawing its rows): right-click again, within the same bound.
    if (!(await menu.waitFor({ state: 'visible', timeout: 15_000 }).then(() => true, () => false))) {
      if (i >= attempts) throw new Error(`no context menu opened on a right-click after ${attempts} attempts (to choose "${item}")`);
      continue;
    }
    const entry = page.locator('.monaco-menu .action-item').filter({ hasText: item }).first();
    // A menu redrawn while it opens (contributions registered meanwhile) detaches the entry found: open it again.
    const hovered = (await entry.isVisible().catch(() => false)) && (await entry.hover({ timeout: 5_000 }).then(() => true, () => false));
    if (hovered) {
      await onOpen?.();
      // A menu ignores a click that comes too soon after it opened (the right
      // button's release must not pick an item); on a loaded machine that can
      // swallow ours. Click until the menu closes, a bounded number of times.
      for (let c = 1; ; c++) {
        await entry.click();
        const at = Date.now();
        if (await menu.waitFor({ state: 'hidden', timeout: 3_000 }).then(() => true, () => false)) return at;
        if (c >= 5) throw new Error(`the context menu stayed open after ${c} clicks on "${item}"`);
      }
    }
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'hidden', timeout: 15_000 }).catch(() => undefined);
    if (i >= attempts) throw new Error(`context menu never offered "${item}" after ${attempts} attempts`);
    // Give the extension host a moment to register contributions before looking again.
    await page.waitForTimeout(500);
  }
}

/** The open quick pick / input box. */
export function quickInput(page: Page): Locator {
  return page.locator('.quick-input-widget');
}

/** Pick the row labelled `label` in the open quick pick. */
export async function pickQuick(page: Page, label: string): Promise<void> {
  const widget = quickInput(page);
  await widget.waitFor({ state: 'visible', timeout: 60_000 });
  const row = widget.locator('.monaco-list-row').filter({ hasText: label }).first();
  await row.waitFor({ state: 'visible', timeout: 60_000 });
  await row.click();
}

/** Type into the open input box and press Enter; `prompt`: wait for the box that says it (not a palette still closing). */
export async function answerInput(page: Page, text: string, prompt?: string): Promise<void> {
  const input = (prompt ? quickInput(page).filter({ hasText: prompt }) : quickInput(page)).locator('input');
  await input.waitFor({ state: 'visible', timeout: 60_000 });
  await input.fill(text);
  await input.press('Enter');
}

/** A notification toast whose text matches. */
export function toast(page: Page, text: string | RegExp): Locator {
  return page.locator('.notifications-toasts .notification-toast').filter({ hasText: text });
}

/**
 * Click `button` on the notification whose text matches: on its toast, or in
 * the Notification Center once the toast has hidden itself.
 */
export async function clickNotificationButton(page: Page, text: RegExp, button: string): Promise<void> {
  const onToast = toast(page, text).getByRole('button', { name: button });
  if (await onToast.isVisible().catch(() => false)) {
    await onToast.click();
    return;
  }
  await runCommand(page, 'Notifications: Show Notifications');
  await page.locator('.notifications-center .notification-list-item').filter({ hasText: text }).getByRole('button', { name: button }).click({ timeout: 30_000 });
}

/**
 * Run a command from the Command Palette by its title. A key press can land
 * while an editor that just opened (an image preview is a webview) takes the
 * focus, and is lost; and the palette lists a command whose `when` clause
 * reads the active editor (`resourceExtname`) only once that editor's context
 * is set, judged when the palette opens. So the palette is opened again, a
 * bounded number of times, until it opens and lists the command.
 */
export async function runCommand(page: Page, title: string, attempts = 3): Promise<void> {
  const input = quickInput(page).locator('input');
  const row = quickInput(page).locator('.monaco-list-row').filter({ hasText: title }).first();
  for (let i = 1; ; i++) {
    await page.keyboard.press('Control+Shift+P');
    if (await input.waitFor({ state: 'visible', timeout: 10_000 }).then(() => true, () => false)) {
      await input.fill(`>${title}`);
      if (await row.waitFor({ state: 'visible', timeout: 20_000 }).then(() => true, () => false)) {
        await row.click();
        return;
      }
      await page.keyboard.press('Escape');
    }
    if (i >= attempts) throw new Error(`the Command Palette did not open with "${title}" listed after ${attempts} attempts`);
  }
}

/**
 * Record the text of every notification toast from now on (a fast run can
 * show and hide its progress notification between two polls), and of every
 * item of the Notification Center while it is shown.
 */
export async function recordToasts(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __pfcToasts?: string[] };
    if (w.__pfcToasts) return;
    const seen: string[] = [];
    w.__pfcToasts = seen;
    const grab = (): void => {
      for (const el of document.querySelectorAll('.notifications-toasts .notification-toast, .notifications-center .notification-list-item')) {
        const t = (el as HTMLElement).innerText;
        if (t && seen[seen.length - 1] !== t) seen.push(t);
      }
    };
    new MutationObserver(grab).observe(document.body, { subtree: true, childList: true, characterData: true });
  });
}

/** Every toast text seen since `recordToasts`. */
export async function seenToasts(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __pfcToasts?: string[] }).__pfcToasts ?? []);
}

/**
 * Wait until a toast matching `text` has been shown (recorded by
 * `recordToasts`, so one that hid itself again still counts). Returns its text.
 * A notification can be shown without a toast (VS Code shows a few toasts at
 * once and none while the Notification Center is open): before giving up, the
 * Notification Center is looked at once.
 */
export async function waitForToastText(page: Page, text: RegExp, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  const lookInCenterAt = deadline - Math.min(15_000, timeoutMs / 3);
  let lookedInCenter = false;
  for (;;) {
    const hit = (await seenToasts(page)).find((t) => text.test(t));
    if (hit) return hit;
    if (Date.now() > deadline) throw new Error(`no notification matching ${text} within ${timeoutMs} ms; seen: ${JSON.stringify(await seenToasts(page))}`);
    if (!lookedInCenter && Date.now() > lookInCenterAt) {
      lookedInCenter = true;
      await lookInNotificationCenter(page);
      continue;
    }
    await page.waitForTimeout(200);
  }
}

/** Open the Notification Center (its items are recorded as they render), then close it again. */
async function lookInNotificationCenter(page: Page): Promise<void> {
  await runCommand(page, 'Notifications: Show Notifications').catch(() => undefined);
  await page.waitForTimeout(500);
  await runCommand(page, 'Notifications: Hide Notifications').catch(() => undefined);
}

/** Forget the recorded toasts (before a new run, so an old summary does not match). */
export async function clearSeenToasts(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = window as unknown as { __pfcToasts?: string[] };
    w.__pfcToasts?.splice(0);
  });
}

/** Wait until the status bar shows an entry whose text matches (a `window.setStatusBarMessage` hides itself after its timeout). */
export async function waitForStatusBarText(page: Page, text: RegExp, timeoutMs: number): Promise<void> {
  await page.locator('.part.statusbar .statusbar-item', { hasText: text }).first().waitFor({ state: 'visible', timeout: timeoutMs });
}

/**
 * Select exactly these Explorer rows (click, then Ctrl+click), checking the
 * tree's own selection state: a click can land while the tree re-renders (a
 * single click also opens a preview editor), so try again, a bounded number of times.
 */
export async function selectRows(page: Page, names: readonly string[], attempts = 5): Promise<void> {
  const selected = async (): Promise<boolean> => {
    for (const n of names) if ((await explorerRow(page, n).getAttribute('aria-selected')) !== 'true') return false;
    return true;
  };
  for (let i = 1; ; i++) {
    await explorerRow(page, names[0]!).click();
    for (const n of names.slice(1)) await explorerRow(page, n).click({ modifiers: ['Control'] });
    const deadline = Date.now() + 3_000;
    while (Date.now() < deadline) {
      if (await selected()) {
        // Still selected a moment later: nothing queued (a late editor, a re-render) took it away.
        await page.waitForTimeout(500);
        if (await selected()) return;
      }
      await page.waitForTimeout(100);
    }
    if (i >= attempts) throw new Error(`could not select ${names.join(', ')} in the Explorer`);
  }
}

/**
 * Answer VS Code's start-up question "Do you trust the authors of the files in
 * this folder?" with "No" and wait for Restricted Mode (its status-bar entry).
 */
export async function distrust(page: Page): Promise<void> {
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.waitFor({ state: 'visible', timeout: 120_000 });
  await dialog.getByRole('button', { name: /^No, I don.t trust/ }).click();
  await page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().waitFor({ state: 'visible', timeout: 60_000 });
}
