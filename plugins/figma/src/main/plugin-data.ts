/**
 * This plugin's records as it stores them in a node's plugin data: JSON
 * objects under its keys (fills.ts, keepers.ts, records.ts, leases.ts …).
 */

/** A JSON object as this plugin stores it (empty when there is none, or it is not an object). */
export function parseJsonObject<T>(json: string): Record<string, T> {
  try {
    const v: unknown = JSON.parse(json || '{}');
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, T>) : {};
  } catch {
    return {};
  }
}

/** A JSON object this plugin stored under `key` (empty when there is none, or it is not an object). */
export function readJson<T>(node: BaseNode, key: string): Record<string, T> {
  return parseJsonObject<T>(node.getPluginData(key));
}
