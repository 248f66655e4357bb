/** DOM building without innerHTML (every text goes in as text), and elements found by their typed id. */

type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Node | string | null | undefined)[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') node.textContent = String(value);
    else if (typeof value === 'function') node.addEventListener(key.replace(/^on/, ''), value);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

/**
 * The element with this id, of this kind: a page whose template lost the element (or made it
 * another kind) fails here, by name, not later as "cannot read properties of null".
 */
export function byId<T extends HTMLElement = HTMLElement>(id: string, kind?: new () => T): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`The page has no element #${id}`);
  const expected = kind ?? (HTMLElement as unknown as new () => T);
  if (!(node instanceof expected)) throw new Error(`#${id} is a <${node.tagName.toLowerCase()}>, not the expected kind`);
  return node;
}

/** The elements matching a selector inside `root`, as an array. */
export function all<T extends Element = HTMLElement>(selector: string, root: ParentNode = document): T[] {
  return [...root.querySelectorAll<T>(selector)];
}

/** The element with this id, of this kind, when the page has it (a part shown to some accounts only). */
export function maybeById<T extends HTMLElement = HTMLElement>(id: string, kind?: new () => T): T | undefined {
  return document.getElementById(id) ? byId(id, kind) : undefined;
}
