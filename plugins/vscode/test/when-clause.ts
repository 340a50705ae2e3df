/**
 * A `when` clause evaluated against a context, as VS Code evaluates the ones
 * of `contributes.menus` (https://code.visualstudio.com/api/references/when-clause-contexts):
 * `!`, `&&` (binds tighter than `||`), parentheses, `==`, `!=`, `=~` with a
 * `/regex/flags` literal, and bare keys (truthy). Values are unquoted words or
 * quoted strings. Enough for this manifest's clauses; anything else throws.
 */
export type WhenContext = Record<string, string | boolean | undefined>;

type Token = { kind: 'op'; text: string } | { kind: 'word'; text: string } | { kind: 'regex'; re: RegExp };

function tokenize(clause: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < clause.length) {
    const c = clause[i]!;
    if (/\s/.test(c)) i++;
    else if (['&&', '||', '==', '!=', '=~'].includes(clause.slice(i, i + 2))) {
      tokens.push({ kind: 'op', text: clause.slice(i, i + 2) });
      i += 2;
    } else if ('!()'.includes(c)) {
      tokens.push({ kind: 'op', text: c });
      i++;
    } else if (c === '/' && tokens.at(-1)?.kind === 'op' && (tokens.at(-1) as { text: string }).text === '=~') {
      let end = i + 1;
      while (end < clause.length && clause[end] !== '/') end += clause[end] === '\\' ? 2 : 1;
      const flags = /^[a-z]*/.exec(clause.slice(end + 1))![0];
      tokens.push({ kind: 'regex', re: new RegExp(clause.slice(i + 1, end), flags) });
      i = end + 1 + flags.length;
    } else if (c === "'" || c === '"') {
      const end = clause.indexOf(c, i + 1);
      tokens.push({ kind: 'word', text: clause.slice(i + 1, end) });
      i = end + 1;
    } else {
      const word = /^[^\s!()&|=]+/.exec(clause.slice(i))![0];
      tokens.push({ kind: 'word', text: word });
      i += word.length;
    }
  }
  return tokens;
}

/** Whether `clause` holds in `context` (an unknown key is undefined, as in VS Code). */
export function evaluateWhen(clause: string, context: WhenContext): boolean {
  const tokens = tokenize(clause);
  let at = 0;
  const peek = (): Token | undefined => tokens[at];
  const isOp = (text: string): boolean => {
    const t = peek();
    return t?.kind === 'op' && t.text === text;
  };
  const or = (): boolean => {
    let v = and();
    while (isOp('||')) {
      at++;
      const rhs = and();
      v = v || rhs;
    }
    return v;
  };
  const and = (): boolean => {
    let v = unary();
    while (isOp('&&')) {
      at++;
      const rhs = unary();
      v = v && rhs;
    }
    return v;
  };
  const unary = (): boolean => {
    if (isOp('!')) {
      at++;
      return !unary();
    }
    if (isOp('(')) {
      at++;
      const v = or();
      if (!isOp(')')) throw new Error(`missing ) in ${clause}`);
      at++;
      return v;
    }
    const key = tokens[at++];
    if (key?.kind !== 'word') throw new Error(`expected a key at token ${at} of ${clause}`);
    const value = context[key.text];
    if (isOp('==') || isOp('!=')) {
      const negate = (tokens[at++] as { text: string }).text === '!=';
      const rhs = tokens[at++];
      if (rhs?.kind !== 'word') throw new Error(`expected a value after ${key.text} in ${clause}`);
      const equal = String(value) === rhs.text;
      return negate ? !equal : equal;
    }
    if (isOp('=~')) {
      at++;
      const rhs = tokens[at++];
      if (rhs?.kind !== 'regex') throw new Error(`expected a /regex/ after ${key.text} =~ in ${clause}`);
      return typeof value === 'string' && rhs.re.test(value);
    }
    return Boolean(value);
  };
  const result = or();
  if (at !== tokens.length) throw new Error(`unexpected token ${at} in ${clause}`);
  return result;
}
