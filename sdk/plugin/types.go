package plugin

import (
	"encoding/json"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
)

// Version is the SDK's own version, reported in Describe.
const Version = "0.1.0"

// Effect classes a capability declares.
const (
	EffectNone    = "none"
	EffectRead    = "read"
	EffectWrite   = "write"
	EffectProcess = "process"
)

// Approval modes a capability declares.
const (
	ApprovalNone     = "none"
	ApprovalOptional = "optional"
	ApprovalRequired = "required"
)

// Status of an invocation's answer.
const (
	StatusOK      = "ok"
	StatusRefused = "refused"
	StatusFailed  = "failed"
)

// Path roles a PathInput declares.
const (
	PathRead   = "read"
	PathWrite  = "write"
	PathDelete = "delete"
)

// Roles the kernel invokes a capability for, beyond steps that name it.
const (
	// RoleModule runs a `tool: {module: ...}` step's deterministic module.
	RoleModule = "module"
	// RoleScript runs a `script:` step's orchestration module.
	RoleScript = "script"
	// RoleCommand runs a `tool: {command: ...}` step's trusted host
	// process: exact argv, cwd, the declared environment, stdin, a timeout.
	RoleCommand = "command"
	// RoleDataMigrate is `runx data migrate` for the adapters its plugin serves.
	RoleDataMigrate = "data.migrate"
	// RoleDataOperation is an operation on a bound data source: an
	// `operation: <connector>/<op>` step whose connector is this plugin and
	// whose call carries the resolved binding.
	RoleDataOperation = "data.operation"
	// RolePrivateData is an operation on the person's own store, in the
	// runx home: an `operation: <connector>/<op>` step whose connector is
	// this plugin. Every call needs a term of the run's delegation for the
	// connector; the kernel holds the call to the term's bounds (streams:
	// the stream names it covers, "said:*" standing for every said: stream)
	// and tells the plugin its store's directory in the binding ({"dir"}).
	// An append to a said: stream (the person's exact words) changes
	// nothing; any other append is a store write.
	RolePrivateData = "data.private"
)

// Private streams: a private call's resource is said:<name> (the person's
// exact words) or observed:<name> (what was observed of them).
const (
	PrivateSaid     = "said:"
	PrivateObserved = "observed:"
)

// ChangeSetSchema names the document Preview answers with.
const ChangeSetSchema = "runx.change_set.v1"

// Info is a plugin's Describe answer.
type Info struct {
	Name            string       `json:"name"`
	Version         string       `json:"version"`
	SDKVersion      string       `json:"sdk_version"`
	ProtocolVersion int          `json:"protocol_version"`
	Capabilities    []Definition `json:"capabilities"`
	// Adapters are the data adapters the plugin serves.
	Adapters []Adapter `json:"adapters,omitempty"`
	// Packets are the packet schemas the plugin describes: a run.yaml
	// output or input may name one (as acme.report.v1), and the kernel
	// holds the value to it.
	Packets []Packet `json:"packets,omitempty"`
}

// Packet is one packet schema a plugin describes: its id (dotted
// lowercase names ending in a version) and its JSON Schema.
type Packet struct {
	ID     string          `json:"id"`
	Schema json.RawMessage `json:"schema"`
}

// Adapter is one kind of data source a plugin serves.
type Adapter struct {
	ID            string          `json:"id"`
	Summary       string          `json:"summary,omitempty"`
	BindingSchema json.RawMessage `json:"binding_schema,omitempty"`
	Credentials   []string        `json:"credentials,omitempty"`
}

// PathInput names one input that holds a workspace-relative path: an RFC
// 6901 pointer where a "*" segment stands for every item of an array.
type PathInput struct {
	Pointer string `json:"pointer"`
	Role    string `json:"role"`
}

// Definition is the one typed description of a capability. Every view of a
// capability (inspection, admission, agent tool lists) reads this.
type Definition struct {
	ID           string          `json:"id"`
	Summary      string          `json:"summary"`
	InputSchema  json.RawMessage `json:"input_schema,omitempty"`
	OutputSchema json.RawMessage `json:"output_schema,omitempty"`
	Effect       string          `json:"effect"`
	Scopes       []string        `json:"scopes,omitempty"`
	Approval     string          `json:"approval"`
	Idempotent   bool            `json:"idempotent"`
	Cost         *Cost           `json:"cost,omitempty"`
	// PathInputs are the inputs that name workspace paths.
	PathInputs []PathInput `json:"path_inputs,omitempty"`
	// Previews: the plugin answers Preview for this capability.
	Previews bool `json:"previews,omitempty"`
	// Recovers: the plugin answers Recover for this capability.
	Recovers bool `json:"recovers,omitempty"`
	// Roles the kernel invokes this capability for.
	Roles []string `json:"roles,omitempty"`
	// ArgvInput points at the input holding the exact argv a process
	// capability executes.
	ArgvInput string `json:"argv_input,omitempty"`
	// ArgsInput, with ArgvInput pointing at a string (the command), points
	// at the array of arguments that follow it.
	ArgsInput string `json:"args_input,omitempty"`
	// Credentials names the credentials a call of this capability is
	// delivered (e.g. "POSTBOX_TOKEN"), in Context.Credentials and never in
	// its input: the kernel resolves each for the connector this plugin is,
	// as it does a manifest connector's credential.
	Credentials []string `json:"credentials,omitempty"`
}

// HasRole reports whether the definition declares role.
func (d *Definition) HasRole(role string) bool {
	for _, r := range d.Roles {
		if r == role {
			return true
		}
	}
	return false
}

// Find returns the definition of a capability id, or nil.
func (i *Info) Find(id string) *Definition {
	for k := range i.Capabilities {
		if i.Capabilities[k].ID == id {
			return &i.Capabilities[k]
		}
	}
	return nil
}

// Cost is what a provider charges per call. A nil USDMicro means the price is
// unknown, which is never the same as free.
type Cost struct {
	USDMicro  *int64 `json:"usd_micro,omitempty"`
	Per       string `json:"per"`
	Source    string `json:"source"`
	SourceURL string `json:"source_url,omitempty"`
}

// Context is what the kernel tells a plugin about one call.
type Context struct {
	RunID          string            `json:"run_id"`
	StepAddress    string            `json:"step_address"`
	CallID         string            `json:"call_id"`
	Attempt        int               `json:"attempt"`
	WorkspaceRoot  string            `json:"workspace_root,omitempty"`
	PackageRoot    string            `json:"package_root,omitempty"`
	Reach          string            `json:"reach,omitempty"`
	ReachRoots     []string          `json:"reach_roots,omitempty"`
	Deadline       time.Time         `json:"deadline,omitzero"`
	IdempotencyKey string            `json:"idempotency_key,omitempty"`
	Binding        json.RawMessage   `json:"binding,omitempty"`
	Credentials    map[string]string `json:"-"`
	Clock          time.Time         `json:"clock,omitzero"`
	// ProtectedRoots are the absolute directories no path of the call may
	// reach, at any reach: runx's home, the project's state directory and
	// the receipt store, wherever they lie (inside the workspace too).
	ProtectedRoots []string `json:"protected_roots,omitempty"`
}

// Call is one invocation of a capability.
type Call struct {
	Capability string
	Context    Context
	// Input is canonical JSON.
	Input []byte
}

// Result is a plugin's typed answer. A refusal or a failure is a Result, not
// a Go error: an error means the transport failed or there is a bug.
type Result struct {
	Status   string
	Code     errcode.Code
	Message  string
	Output   []byte
	Evidence json.RawMessage
	// DiscardWorker asks the kernel not to reuse this plugin process.
	DiscardWorker bool
}

// OK is a successful answer carrying output (JSON) and optional evidence.
func OK(output []byte, evidence json.RawMessage) *Result {
	return &Result{Status: StatusOK, Output: output, Evidence: evidence}
}

// Refused is a typed refusal: the call was not carried out.
func Refused(code errcode.Code, message string) *Result {
	return &Result{Status: StatusRefused, Code: code, Message: message}
}

// Failed is a typed failure: the call was attempted and did not succeed.
func Failed(code errcode.Code, message string) *Result {
	return &Result{Status: StatusFailed, Code: code, Message: message}
}
