// Building the page's elements. Every value goes in as text (a text node or an
// attribute), never as HTML: a name, a move or a message from the server or another
// client cannot add elements to the page. The app uses nothing else to make elements.

/**
 * h("td", {class: "move", dataset: {index: 3}}, "24/18", h("b", {}, name)) -> <td>.
 * Children: strings and numbers become text nodes, nodes are appended, null/false are
 * skipped, arrays are flattened.
 */
export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "dataset") Object.assign(node.dataset, value);
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  append(node, children);
  return node;
}

function append(node, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** Replace the children of `node` with `children` (same rules as `h`). */
export function fill(node, ...children) {
  node.replaceChildren();
  append(node, children);
  return node;
}
