import { HEADINGS } from "./kinds.mjs";

function line(c) {
  return `- ${c.title}${c.ref ? ` (${c.ref})` : ""}${c.breaking ? " **(breaking)**" : ""}`;
}

// The notes as Markdown: the heading, the breaking notice when there is one,
// then one section per kind that has changes.
export default function render({ version, sections, counts, breaking, notice }) {
  const parts = [`## ${version}`];
  if (notice) {
    parts.push(notice);
  }
  if (sections.length === 0) {
    parts.push("No changes.");
  }
  for (const s of sections) {
    parts.push(`### ${HEADINGS[s.kind]}\n\n${s.changes.map(line).join("\n")}`);
  }
  return { version, markdown: parts.join("\n\n") + "\n", counts, breaking: breaking.length };
}
