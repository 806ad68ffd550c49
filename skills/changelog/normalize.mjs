import { KINDS } from "./kinds.mjs";

// One change, checked on its own: a known kind and a non-empty title.
export default function normalize({ change }) {
  if (change === null || typeof change !== "object" || Array.isArray(change)) {
    throw new TypeError("a change is an object {kind, title, breaking?, ref?}");
  }
  const kind = String(change.kind ?? "").trim().toLowerCase();
  if (!KINDS.includes(kind)) {
    throw new TypeError(`unknown kind ${JSON.stringify(change.kind)}: use one of ${KINDS.join(", ")}`);
  }
  const title = String(change.title ?? "").trim().replace(/\s+/g, " ");
  if (title === "") {
    throw new TypeError("a change needs a title");
  }
  const out = { kind, title, breaking: change.breaking === true };
  if (change.ref !== undefined && change.ref !== null && String(change.ref) !== "") {
    out.ref = String(change.ref);
  }
  return out;
}
