// Answers the audit's runx.verdict.v1 from the receipts the range holds and
// their proofs, and says what ran: each run with its signer, outcome and
// steps (capability, kind, outcome), and every receipt that did not verify.
export default function (input) {
  const receipts = input.query.receipts;
  const proofs = input.proofs;
  // prove ran once per queried receipt, in order: a proof of another
  // receipt than the one asked for is no proof of it.
  const proofOf = (r, i) => (proofs[i] && proofs[i].receipt_id === r.receipt_id ? proofs[i] : null);

  const runs = new Map();
  const unverified = [];
  receipts.forEach((r, i) => {
    const run = runs.get(r.run_id) || { run_id: r.run_id, skill_name: r.skill_name, method: r.method, steps: [] };
    const proof = proofOf(r, i);
    if (!proof) {
      unverified.push({ receipt_id: r.receipt_id, status: "invalid", problems: ["proof_of_another_receipt"] });
    } else if (proof.status !== "verified") {
      unverified.push({ receipt_id: r.receipt_id, status: proof.status, problems: ((proof.tree || {}).problems || []).map((x) => x.code) });
    }
    const meta = (proof || {}).receipt || {};
    if (r.kind === "run") {
      run.receipt_id = r.receipt_id;
      run.outcome = r.outcome;
      run.sealed_at = r.sealed_at;
      run.signer_key_id = meta.signer_key_id;
      if (meta.seal_reason) run.seal_reason = meta.seal_reason;
    } else {
      const step = { step_id: meta.step_id, capability: meta.capability, step_kind: meta.step_kind, outcome: r.outcome };
      if (meta.error_code) step.error_code = meta.error_code;
      run.steps.push(step);
    }
    runs.set(r.run_id, run);
  });

  const incomplete = [...runs.values()].filter((r) => r.outcome !== undefined && r.outcome !== "completed");

  const checks = [];
  const empty = receipts.length === 0;
  checks.push(empty
    ? { id: "range_complete", status: "inconclusive", reason: "the range holds no receipts" }
    : input.query.more
      ? { id: "range_complete", status: "inconclusive", reason: `more receipts than the limit of ${receipts.length}: audit a narrower range or raise the limit` }
      : { id: "range_complete", status: "met" });
  checks.push(empty
    ? { id: "receipts_found", status: "inconclusive", reason: "no receipt names this skill" }
    : { id: "receipts_found", status: "met", reason: `${receipts.length} receipts of ${runs.size} runs` });
  checks.push(empty
    ? { id: "receipts_verified", status: "inconclusive", reason: "nothing to verify" }
    : unverified.length === 0
      ? { id: "receipts_verified", status: "met" }
      : { id: "receipts_verified", status: "not_met", reason: `${unverified.length} of ${receipts.length} receipts did not verify: ${unverified.slice(0, 8).map((u) => `${u.receipt_id} ${u.status} ${u.problems.join(",")}`).join("; ")}` });
  checks.push(empty
    ? { id: "runs_completed", status: "inconclusive", reason: "no run in the range" }
    : incomplete.length === 0
      ? { id: "runs_completed", status: "met" }
      : { id: "runs_completed", status: "not_met", reason: `${incomplete.length} runs did not complete: ${incomplete.slice(0, 8).map((r) => `${r.run_id} ${r.outcome}${r.seal_reason ? ` (${r.seal_reason})` : ""}`).join("; ")}` });

  return {
    verdict: { schema: "runx.verdict.v1", subject: input.subject, criteria: input.criteria, checks },
    summary: { receipts: receipts.length, runs: [...runs.values()], unverified, incomplete: incomplete.map((r) => r.run_id) },
  };
}
