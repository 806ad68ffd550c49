package pkg

import (
	"github.com/runxhq/runx/kernel/contract"

	"github.com/runxhq/runx/kernel/contract/seal"
)

// TestCase is one tests/<name>.yaml: a run of one method against stand-ins
// for its host and providers, and what that run must show.
type TestCase struct {
	Path    string         `json:"path"`
	Name    string         `json:"name"`              // default: the file's stem
	Method  string         `json:"method,omitempty"`  // default: the package's default
	Package string         `json:"package,omitempty"` // fixtures/<dir> to run a fixture package instead
	Inputs  map[string]any `json:"inputs,omitempty"`
	Setup   *TestSetup     `json:"setup,omitempty"`
	Host    *TestHost      `json:"host,omitempty"`
	// Providers stands in for what the run reaches: processes, http and
	// mcp are carried out; hosted is refused (test_field_unsupported).
	Providers *TestProviders `json:"providers,omitempty"`
	Expect    *Expectation   `json:"expect"`
}

// TestSetup is state a test starts from.
type TestSetup struct {
	Receipts  []string       `json:"receipts,omitempty"`  // package-relative .json receipts to seed
	Authority map[string]any `json:"authority,omitempty"` // the run's authority, as --run-authority states one
	// Credentials are connector credentials the test sets, by the
	// environment variable a connector of the package declares: each is
	// stored as that connector's credential in the test's scratch runx
	// home, never the person's.
	Credentials map[string]string `json:"credentials,omitempty"`
}

// TestProviders stands in for what a test's run reaches.
type TestProviders struct {
	// Processes answer a process tool's calls in place of the process: an
	// unmatched call fails without starting it.
	Processes []*TestProcess `json:"processes,omitempty"`
	// HTTP answers connector requests, in declaration order; a request no
	// exchange matches is refused without reaching the network.
	HTTP []*TestHTTPExchange `json:"http,omitempty"`
	// MCP answers connector tool calls from a loopback MCP server standing
	// in for each named connector's; an unmatched call fails the test.
	MCP []*TestMCPCall `json:"mcp,omitempty"`
}

// TestHTTPExchange is one request a test declares and the response it gets.
type TestHTTPExchange struct {
	Method string `json:"method"`
	URL    string `json:"url"` // canonical, as the native final URL
	// HasBody is false for body: none; Body is the structural JSON value of
	// body: {json: ...} (null included).
	HasBody  bool              `json:"has_body"`
	Body     any               `json:"body,omitempty"`
	Response *TestHTTPResponse `json:"response"`
}

// TestHTTPResponse is the transport response an exchange answers with.
type TestHTTPResponse struct {
	Status  int               `json:"status"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    string            `json:"body,omitempty"`
}

// TestProcess is one process call a test answers: the tool's command as the
// step names it, its exact arguments, and the JSON object it prints.
type TestProcess struct {
	Tool   string         `json:"tool"`
	Args   []string       `json:"args"`
	Result map[string]any `json:"result"`
}

// Process stand-in bounds (the runx reference, providers.processes).
const (
	MaxTestProcesses     = 32
	MaxTestProcessArgs   = 64 << 10
	MaxTestProcessResult = 2 << 20
	// MaxTestHTTPExchanges bounds a test's declared exchanges; each
	// response body is bounded like a process result.
	MaxTestHTTPExchanges = 256
)

// TestHost stands in for what answers the run.
type TestHost struct {
	Act     string         `json:"act,omitempty"`     // the run's act, read as $run.act
	Answers map[string]any `json:"answers,omitempty"` // agent turn outputs by step id or address
	// Approvals decide requests by address (an operation step's id, an ask's
	// gate, <path>#<id> in a child run).
	Approvals map[string]bool      `json:"approvals,omitempty"`
	Turns     map[string]*TestTurn `json:"turns,omitempty"` // turns worked call by call, by step id or address
}

// TestTurn is an agent turn the host works through its calls.
type TestTurn struct {
	Calls  []*TestTurnCall `json:"calls,omitempty"`
	Output any             `json:"output"`
}

// TestTurnCall is one call a worked turn makes, and optionally what it must return.
type TestTurnCall struct {
	Tool   string             `json:"tool"`
	Input  any                `json:"input,omitempty"`
	Expect *OutputExpectation `json:"expect,omitempty"`
}

// Expectation is what a test's run must show.
type Expectation struct {
	Status  contract.RunStatus `json:"status"` // sealed, needs_agent, needs_approval
	Outcome seal.Outcome       `json:"outcome,omitempty"`
	Output  *OutputExpectation `json:"output,omitempty"`
	// Absent names, by JSON pointer into the output, fields that must not exist.
	Absent      []string                      `json:"absent,omitempty"`
	Receipt     map[string]any                `json:"receipt,omitempty"` // a subset of the root receipt
	Steps       []string                      `json:"steps,omitempty"`   // step ids in execution order
	StepOutputs map[string]*OutputExpectation `json:"step_outputs,omitempty"`
	// HTTPRequestCounts is how many requests each declared providers.http
	// exchange must answer, in declaration order, repeats included.
	HTTPRequestCounts []int `json:"http_request_counts,omitempty"`
}

// Comparison modes of an OutputExpectation.
const (
	CompareSubset = "subset" // objects may hold more fields; arrays match in length and order
	CompareExact  = "exact"
)

// OutputExpectation compares a value one way. Mode records which comparison
// was written, so `exact: null` (expect a null result) differs from no
// expectation at all.
type OutputExpectation struct {
	Mode  string `json:"mode"`
	Value any    `json:"value"`
}
