// Plans one inbox transition: the packet to append, the stream it goes on,
// and an idempotency key derived from the transition itself.

const SCAN_STATUSES = ["complete", "partial", "failed"];
const DISPOSITIONS = ["archive", "reply", "escalate", "snooze"];
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function need(obj, field, what) {
  const v = obj?.[field];
  if (typeof v !== "string" || v.trim() === "") {
    throw new TypeError(`${what}.${field} is required and must be a non-empty string`);
  }
  return v.trim();
}

function packet(operation, observedAt, body) {
  return { effect_family: "operator_inbox", operation, observed_at: observedAt, ...body };
}

function scanPage({ observed_at, scan, messages }) {
  const scanID = need(scan, "scan_id", "scan");
  const provider = need(scan, "provider", "scan");
  const queryDigest = need(scan, "query_digest", "scan");
  const startedAt = need(scan, "started_at", "scan");
  if (!/^sha256:[0-9a-f]{64}$/.test(queryDigest)) {
    throw new TypeError("scan.query_digest must be sha256:<64 hex>");
  }
  if (!Number.isInteger(scan.page_index) || scan.page_index < 1) {
    throw new TypeError("scan.page_index must be a positive integer");
  }
  if (!SCAN_STATUSES.includes(scan.status)) {
    throw new TypeError(`scan.status must be one of ${SCAN_STATUSES.join(", ")}`);
  }
  if (!Array.isArray(messages)) {
    throw new TypeError("messages must be an array");
  }
  return {
    resource: "operator_inbox_scans",
    aggregate_id: queryDigest,
    idempotency_key: `operator_inbox:scan_page:${scanID}:${scan.page_index}`,
    transition: packet("scan_page", observed_at, {
      scan: { scan_id: scanID, provider, query_digest: queryDigest, page_index: scan.page_index, status: scan.status, started_at: startedAt },
      message_count: messages.length,
      messages,
    }),
  };
}

function actionObservation({ observed_at, action }) {
  const actionID = need(action, "action_id", "action");
  const messageID = need(action, "message_id", "action");
  const kind = need(action, "kind", "action");
  const body = { action: { action_id: actionID, message_id: messageID, kind } };
  if (action.detail !== undefined) {
    body.action.detail = action.detail;
  }
  return {
    resource: "operator_inbox_actions",
    aggregate_id: messageID,
    idempotency_key: `operator_inbox:action_observation:${actionID}`,
    transition: packet("action_observation", observed_at, body),
  };
}

function disposition({ observed_at, disposition: d }) {
  const messageID = need(d, "message_id", "disposition");
  const reason = need(d, "reason", "disposition");
  if (!DISPOSITIONS.includes(d.disposition)) {
    throw new TypeError(`disposition.disposition must be one of ${DISPOSITIONS.join(", ")}`);
  }
  return {
    resource: "operator_inbox_actions",
    aggregate_id: messageID,
    idempotency_key: `operator_inbox:disposition:${messageID}:${d.disposition}:${observed_at}`,
    transition: packet("disposition", observed_at, { disposition: { message_id: messageID, disposition: d.disposition, reason } }),
  };
}

const PLANNERS = { scan_page: scanPage, action_observation: actionObservation, disposition };

export default function plan(input) {
  if (!RFC3339.test(String(input.observed_at ?? ""))) {
    throw new TypeError("observed_at must be an RFC 3339 time");
  }
  const planner = PLANNERS[input.operation];
  if (!planner) {
    throw new TypeError(`unknown operation ${JSON.stringify(input.operation)}`);
  }
  return planner(input);
}
