const ORDER = ["feat", "fix", "docs", "chore"];

// Sections in a fixed order, each kind counted, breaking changes listed.
export default function group({ changes }) {
  const counts = Object.fromEntries(ORDER.map((k) => [k, 0]));
  const byKind = Object.fromEntries(ORDER.map((k) => [k, []]));
  for (const c of changes) {
    counts[c.kind] += 1;
    byKind[c.kind].push(c);
  }
  const sections = ORDER.filter((k) => byKind[k].length > 0).map((kind) => ({ kind, changes: byKind[kind] }));
  return { sections, counts, breaking: changes.filter((c) => c.breaking) };
}
