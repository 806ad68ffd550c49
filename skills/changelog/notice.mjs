// The notice at the top of the notes when anything breaks.
export default function notice({ breaking }) {
  const lines = breaking.map((c) => `- ${c.title}${c.ref ? ` (${c.ref})` : ""}`);
  const noun = breaking.length === 1 ? "change needs" : "changes need";
  return { notice: `**${breaking.length} breaking ${noun} action when you upgrade:**\n\n${lines.join("\n")}` };
}
