// The kinds of change, in the order their sections appear.
export const KINDS = ["feat", "fix", "docs", "chore"];

export const HEADINGS = {
  feat: "Features",
  fix: "Fixes",
  docs: "Documentation",
  chore: "Maintenance",
};
