/**
 * One run of the plugin, from its launch until it closes: the `figma` its
 * code is given, and every object it reaches through it (nodes, images,
 * `figma.ui`, `clientStorage`), seen through a membrane of proxies. The tests
 * hold the simulator's own objects and read the document directly; only the
 * plugin's view is limited, as Figma documents:
 *
 * - **Closed**: "Calling `figma.closePlugin()` disables callbacks and Figma
 *   APIs. It does not, however, abort the plugin. Any lines of Javascript
 *   after this call will also run" (typings `PluginAPI.closePlugin`), and when
 *   the user closes the plugin "the plugin execution environment will be
 *   destroyed immediately when all the callbacks have returned, and further
 *   callbacks will not be called" (typings `PluginAPI.on`, event `"close"`).
 *   So afterwards every API call, property read or write throws; callbacks
 *   into the plugin (messages, `selectionchange`, `findAll`'s) are dropped;
 *   and a promise the API returned that had not settled never settles, so no
 *   plugin code after an `await` on it runs.
 * - **Invisible inside an instance**: while `figma.skipInvisibleInstanceChildren`
 *   is on, "Accessing a property on an existing node object for an invisible
 *   node will throw an error" (typings `PluginAPI.skipInvisibleInstanceChildren`):
 *   every read, write, method call — and, as whether it does is not
 *   documented, `in` tests and key listing — on such a node throws. Which
 *   nodes those are is the simulator's `hiddenFromPlugin` (nodes.ts).
 * - **On a page not loaded**: with `"documentAccess": "dynamic-page"` "you
 *   must first call `PageNode.loadAsync`" to reach a page's children and
 *   search it (typings `ChildrenMixin.children`, `findAllWithCriteria`), and
 *   `loadAllPagesAsync` to search the whole document (typings
 *   `DocumentNode.findAllWithCriteria`). Whether a node of a page not loaded
 *   can be read once `getNodeByIdAsync` returned it is not documented: here
 *   it cannot, the stricter reading. Which accesses those are is the
 *   simulator's choice (figma.ts).
 * - **Removed**: a node the plugin holds may be deleted while it works —
 *   "Someone else deleted the node using multiplayer", "The user simply
 *   deleted the node" — so "you should write your code defensively and check
 *   that the nodes haven't been removed by the user" (typings
 *   `BaseNodeMixin.removed`). Figma then answers "The node (with id …) does
 *   not exist": here every property read or write of a removed node throws
 *   but `removed` and `id`, and every method call, an async one by rejecting
 *   (also one paused and released after the node went). Which accesses are
 *   refused is the simulator's `gone` (figma.ts).
 */

/** What the membrane asks of the simulator. */
export interface SessionHost {
  /** Why the plugin may not touch `key` of `target` now (an invisible layer inside an instance, a page not loaded), or undefined. */
  refusal(target: object, key: string): string | undefined;
  /** Why the plugin may not use `key` of `target` because the node was removed (see above), or undefined. */
  gone(target: object, key: string): string | undefined;
  /**
   * The plugin calls the API method `method`: true when the user closes the
   * window right then, while the call is pending, so that it never takes
   * effect (a test's choice: whether a pending change lands is not documented);
   * a promise when the call (of an async method) waits for it before it takes
   * effect; false when it goes ahead.
   */
  calling(method: string): boolean | Promise<void>;
  /** A promise an API method returned has resolved; called before the plugin sees it (a test may close the plugin here). */
  resolved(method: string): void;
}

/** Objects the plugin gets as they are: data, not API objects (paints, sizes, bytes, errors, messages). */
function isData(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null || Array.isArray(value) || ArrayBuffer.isView(value) || value instanceof Error;
}

export class PluginSession {
  private isClosed = false;
  private readonly proxies = new WeakMap<object, object>();
  private readonly targets = new WeakMap<object, object>();

  constructor(private readonly host: SessionHost) {}

  get closed(): boolean {
    return this.isClosed;
  }

  /** The plugin closed, by `figma.closePlugin()` or the user: nothing of the API works for it any more. */
  close(): void {
    this.isClosed = true;
  }

  /** The plugin's view of something the API hands it. */
  toPlugin(value: unknown): unknown {
    if (value instanceof Promise) return this.settleWhileOpen(value, 'a promise');
    if (Array.isArray(value)) return value.some((v) => typeof v === 'object' && v !== null && !isData(v)) ? value.map((v) => this.toPlugin(v)) : value;
    if (typeof value !== 'object' || value === null || isData(value)) return value;
    return this.proxyOf(value);
  }

  /** The simulator's view of something the plugin hands the API: its own objects back, the plugin's callbacks guarded. */
  toHost(value: unknown): unknown {
    if (typeof value === 'function') return this.callback(value as (...args: unknown[]) => unknown);
    if (Array.isArray(value)) return value.map((v) => this.toHost(v));
    if (typeof value === 'object' && value !== null) return this.targets.get(value) ?? value;
    return value;
  }

  private guard(target: object, key: string | symbol, what: string): void {
    if (this.isClosed) throw new Error(`${what}: the plugin is closed, and Figma APIs are disabled (figma.closePlugin)`);
    const refusal = this.host.refusal(target, String(key));
    if (refusal) throw new Error(refusal);
  }

  /** A property of a node that may have been removed: refused then. */
  private guardProperty(target: object, key: string | symbol, what: string): void {
    this.guard(target, key, what);
    const gone = this.host.gone(target, String(key));
    if (gone) throw new Error(`${what}: ${gone}`);
  }

  private proxyOf(target: object): object {
    const known = this.proxies.get(target);
    if (known) return known;
    const name = (key: string | symbol) => `${target.constructor.name}.${String(key)}`;
    const proxy = new Proxy(target, {
      get: (t, key) => {
        this.guard(t, key, name(key));
        const value: unknown = Reflect.get(t, key, t);
        // A removed node's method is refused when called (an async one rejects), its other properties when read.
        if (typeof value === 'function') return this.method(t, key, value as (...args: unknown[]) => unknown);
        this.guardProperty(t, key, name(key));
        return this.toPlugin(value);
      },
      set: (t, key, value) => {
        this.guardProperty(t, key, name(key));
        return Reflect.set(t, key, this.toHost(value), t);
      },
      has: (t, key) => {
        this.guardProperty(t, key, name(key));
        return Reflect.has(t, key);
      },
      ownKeys: (t) => {
        this.guardProperty(t, 'keys', name('keys'));
        return Reflect.ownKeys(t);
      },
      getOwnPropertyDescriptor: (t, key) => {
        this.guardProperty(t, key, name(key));
        return Reflect.getOwnPropertyDescriptor(t, key);
      },
      defineProperty: (t, key, descriptor) => {
        this.guardProperty(t, key, name(key));
        return Reflect.defineProperty(t, key, descriptor);
      },
      deleteProperty: (t, key) => {
        this.guardProperty(t, key, name(key));
        return Reflect.deleteProperty(t, key);
      },
    });
    this.proxies.set(target, proxy);
    this.targets.set(proxy, target);
    return proxy;
  }

  /** An API method as the plugin calls it: on the simulator's object, checked at the call too (a method read earlier, called later). */
  private method(target: object, key: string | symbol, fn: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
    const what = `${target.constructor.name}.${String(key)}()`;
    const isAsync = String(key).endsWith('Async');
    return (...args: unknown[]) => {
      this.guard(target, key, what);
      const gone = this.host.gone(target, String(key));
      if (gone) {
        const refused = new Error(`${what}: ${gone}`);
        if (isAsync) return this.settleWhileOpen(Promise.reject(refused), String(key));
        throw refused;
      }
      const call = () => fn.apply(target, args.map((a) => this.toHost(a)));
      const wait = this.host.calling(String(key));
      if (wait === true) return new Promise(() => undefined);
      // Paused: the call takes effect once released, if the plugin is still open and the node still there then.
      if (wait) return this.settleWhileOpen(wait.then(() => (this.guardProperty(target, key, what), call())), String(key));
      const result = call();
      return result instanceof Promise ? this.settleWhileOpen(result, String(key)) : this.toPlugin(result);
    };
  }

  /** A promise that settles as `promise` does, unless the plugin was closed by then: then it never settles. */
  private settleWhileOpen(promise: Promise<unknown>, method: string): Promise<unknown> {
    return new Promise((resolve, reject) => {
      promise.then(
        (value) => {
          this.host.resolved(method);
          if (!this.isClosed) resolve(this.toPlugin(value));
        },
        (error: unknown) => {
          if (!this.isClosed) reject(error);
        },
      );
    });
  }

  /** A plugin function the simulator calls (a handler, a `findAll` callback): not once the plugin is closed. */
  private callback(fn: (...args: unknown[]) => unknown): (...args: unknown[]) => unknown {
    return (...args: unknown[]) => (this.isClosed ? undefined : this.toHost(fn(...args.map((a) => this.toPlugin(a)))));
  }
}
