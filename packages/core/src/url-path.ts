/**
 * Request paths built from ids. Every interpolated value becomes exactly one
 * encoded path segment, so an id holding `/`, `?`, `#` or `%` cannot reach
 * another route, and an empty, `.` or `..` id, which URL resolution would
 * drop or walk up from, is refused before anything is sent (openai-node's
 * `path` tag does the same for its resource paths).
 */
import { ParameterError } from './errors';

/**
 * Builds a request path, encoding each value as one segment.
 * @example
 * path`/presets/${presetId}`   // '/presets/my%20preset'
 * path`/status/${'../upload'}` // '/status/..%2Fupload'
 * path`/status/${'..'}`        // throws ParameterError
 * @throws ParameterError (before anything is sent) when a value is empty, `.` or `..`.
 */
export function path(template: TemplateStringsArray, ...values: (string | number)[]): string {
  let out = template[0] ?? '';
  values.forEach((value, i) => {
    out += segment(value, template.raw.join('{}')) + (template[i + 1] ?? '');
  });
  return out;
}

function segment(value: string | number, route: string): string {
  const text = String(value);
  if (text === '' || text === '.' || text === '..') {
    throw new ParameterError([{ param: route, message: `${route}: an id must not be empty, "." or ".." (got ${JSON.stringify(text)})` }]);
  }
  return encodeURIComponent(text);
}
