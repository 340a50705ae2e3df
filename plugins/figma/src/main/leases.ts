/**
 * Which applies cut short a start may settle, in a document several people
 * edit at once, each running the plugin in their own session.
 *
 * Plugin data syncs between sessions while an apply waits at an `await`, so
 * a start in one session sees the markers of an apply still running in
 * another. Settling those would remove its fresh copies and rewrite the
 * records of layers it has not changed yet — the way back to their originals.
 * So each apply has an entry of its own on `figma.root` (`LEASE_PREFIX` + its
 * id: the pages it marks, its client, when it last renewed), written and
 * removed by that apply alone, or by the start that settles it; no session
 * rewrites a list another one writes too. A start settles an apply's markers
 * only when it cannot still be running:
 * - at once when it was this client's: Figma runs one instance of a plugin at
 *   a time in a client (launching it again closes the open one; the typings do
 *   not say so, the simulator's `launch` does the same), so the apply of an
 *   earlier start is over;
 * - another client's once its lease has run out: it renews the lease at every
 *   layer and lookup while it works, so an entry left this long unrenewed was
 *   cut short. The wait allows for the clocks of two machines disagreeing
 *   (an entry from a clock further ahead waits longer; its own client's next
 *   start settles it at once all the same).
 *
 * "This client" is a random id kept in `figma.clientStorage`, which stores
 * data "on the user's local machine" (typings `PluginAPI.clientStorage`,
 * plugin-api.d.ts:403-407) and needs no permission. Not `figma.currentUser`,
 * whose `sessionId` needs the `currentuser` permission, a user's identity the
 * plugin has no other use for (typings :124-129); not `figma.activeUsers`,
 * "only available in FigJam" (typings :131-137). What this cannot tell apart:
 * two windows on one machine, should they share its store, count as one
 * client.
 */
import type { FigmaApi } from './host';
import { parseJsonObject } from './plugin-data';

/** Prefix of the plugin data keys on `figma.root`, one per running apply: JSON `Lease`. */
export const LEASE_PREFIX = 'pfc.applying:';
/** clientStorage name of this client's id. */
export const CLIENT_ID_KEY = 'pfc.clientId.v1';

/** How long an apply's entry stays its own without a renewal: far longer than one layer's change or lookup takes. */
export const LEASE_MS = 5 * 60_000;
/** How far two machines' clocks may disagree: another client's entry waits this much longer. */
export const CLOCK_SKEW_MS = 5 * 60_000;
/** How often a running apply writes its renewal (a document change each time, synced to every session). */
export const RENEW_MS = 30_000;

/** A running apply's entry: the pages it writes ahead on, its client, and when it last said it was running (ms since the epoch, its clock). */
export interface Lease {
  pages: string[];
  client: string;
  renewedAt: number;
}

/** An apply's hold on what it writes ahead: its entry's key, and the entry as last written. */
export interface Holding {
  key: string;
  /** The apply's id, which each of its markers carries. */
  apply: string;
  lease: Lease;
}

/** A fresh random id: the sandbox has no `crypto`, and these need only not repeat between clients and applies. */
function randomId(): string {
  return `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 10)}`;
}

/**
 * This client's id, made at its first start. Should the store refuse it, this
 * run's own: what it leaves is then settled once its lease runs out.
 */
export async function clientId(storage: FigmaApi['clientStorage']): Promise<string> {
  const saved: unknown = await storage.getAsync(CLIENT_ID_KEY);
  if (typeof saved === 'string' && saved !== '') return saved;
  const id = randomId();
  try {
    await storage.setAsync(CLIENT_ID_KEY, id);
  } catch {
    // The store is full: an id for this run alone.
  }
  return id;
}

/** A new apply's hold: nothing is written until it marks a page (`holdPage`). */
export function newHolding(client: string): Holding {
  const apply = randomId();
  return { key: LEASE_PREFIX + apply, apply, lease: { pages: [], client, renewedAt: 0 } };
}

function writeLease(figma: Pick<FigmaApi, 'root'>, h: Holding): void {
  h.lease.renewedAt = Date.now();
  figma.root.setPluginData(h.key, JSON.stringify(h.lease));
}

/** Before anything is written ahead on `page`: it is in the apply's entry, so a start finds it. */
export function holdPage(figma: Pick<FigmaApi, 'root'>, h: Holding, page: string): void {
  if (h.lease.pages.includes(page)) return renewLease(figma, h);
  h.lease.pages.push(page);
  writeLease(figma, h);
}

/** The apply is still running: its entry says so, at most every `RENEW_MS`. */
export function renewLease(figma: Pick<FigmaApi, 'root'>, h: Holding): void {
  if (h.lease.pages.length > 0 && Date.now() - h.lease.renewedAt >= RENEW_MS) writeLease(figma, h);
}

/** The apply is done: everything it wrote ahead is finished. */
export function endLease(figma: Pick<FigmaApi, 'root'>, h: Holding): void {
  if (figma.root.getPluginData(h.key)) figma.root.setPluginData(h.key, '');
}

/** An entry as stored; undefined when it is not one this plugin wrote. */
function readLease(json: string): Lease | undefined {
  const l = parseJsonObject<unknown>(json) as Partial<Lease>;
  const pages = Array.isArray(l.pages) && l.pages.every((p) => typeof p === 'string');
  return pages && typeof l.client === 'string' && typeof l.renewedAt === 'number' ? (l as Lease) : undefined;
}

/** An apply whose markers a start may settle: its id, the entry's key, and its entry. */
export interface DueApply {
  apply: string;
  key: string;
  lease: Lease;
}

/** Whether an apply cannot still be running: this client's, or another's whose lease ran out, by any clock within the skew. */
function isOver(lease: Lease, client: string, now: number): boolean {
  return lease.client === client || now - lease.renewedAt > LEASE_MS + CLOCK_SKEW_MS;
}

/** The entries among `keys` (of `figma.root`) whose applies a start by `client` may settle now; an entry it cannot read holds nothing to settle, and goes too. */
export function dueApplies(figma: Pick<FigmaApi, 'root'>, keys: readonly string[], client: string, now: number): DueApply[] {
  return keys.flatMap((key) => {
    if (!key.startsWith(LEASE_PREFIX)) return [];
    const lease = readLease(figma.root.getPluginData(key)) ?? { pages: [], client, renewedAt: 0 };
    return isOver(lease, client, now) ? [{ apply: key.slice(LEASE_PREFIX.length), key, lease }] : [];
  });
}

/** After settling: the entry goes, or keeps the pages that could not be settled, for a later start. */
export function keepUnsettled(figma: Pick<FigmaApi, 'root'>, due: DueApply, failed: ReadonlySet<string>): void {
  const pages = due.lease.pages.filter((p) => failed.has(p));
  figma.root.setPluginData(due.key, pages.length > 0 ? JSON.stringify({ ...due.lease, pages }) : '');
}
