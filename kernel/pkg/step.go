package pkg

// StepKind says what a step runs. A `tool:` step is "tool" when it names a
// native capability, "module" or "command" when it declares one inline.
type StepKind string

const (
	KindTool      StepKind = "tool"
	KindModule    StepKind = "module"
	KindCommand   StepKind = "command"
	KindOperation StepKind = "operation"
	KindSkill     StepKind = "skill"
	KindAgent     StepKind = "agent"
	KindAsk       StepKind = "ask"
	KindScript    StepKind = "script"
)

// Step is one step of a method. Exactly one of Tool, Operation, Skill, Agent,
// Ask and Script is set, matching Kind.
type Step struct {
	ID        string         `json:"id"`
	Kind      StepKind       `json:"kind"`
	Tool      *ToolStep      `json:"tool,omitempty"`
	Operation *OperationStep `json:"operation,omitempty"`
	Skill     string         `json:"skill,omitempty"` // <ref>[#method]
	Agent     *AgentStep     `json:"agent,omitempty"`
	Ask       *AskStep       `json:"ask,omitempty"`
	Script    *ScriptStep    `json:"script,omitempty"`
	// Inputs are raw: literals as written and references ("$input.x",
	// "$steps.a.y", "$item", "$run.act") as strings, "$$" escapes untouched.
	// References were checked at load; resolving them is the runner's job.
	Inputs         map[string]any         `json:"inputs,omitempty"`
	When           string                 `json:"when,omitempty"`     // CEL guard over input, steps, run
	ForEach        string                 `json:"for_each,omitempty"` // a reference to a list; the item is $item
	Concurrency    int                    `json:"concurrency,omitempty"`
	Outputs        map[string]*OutputSpec `json:"outputs,omitempty"`
	ResultAs       string                 `json:"result_as,omitempty"`
	Effects        string                 `json:"effects,omitempty"`
	Reach          string                 `json:"reach,omitempty"`
	TimeoutSeconds int                    `json:"timeout_seconds,omitempty"`
	Retry          *Retry                 `json:"retry,omitempty"`
	Pos            Position               `json:"pos"`
}

// ToolStep is a `tool:` step: a capability id, or one inline module or command.
type ToolStep struct {
	Capability string       `json:"capability,omitempty"` // e.g. fs.read, store/events.append
	Module     *ModuleTool  `json:"module,omitempty"`
	Command    *CommandTool `json:"command,omitempty"`
}

// ModuleTool is deterministic JavaScript run by the worker plugin.
type ModuleTool struct {
	Module   string   `json:"module"`             // package-relative .js/.mjs
	Requires []string `json:"requires,omitempty"` // worker helpers it needs, checked at admission
	// Environment is the exact non-secret configuration the module receives
	// as its frozen second argument; nothing else from the host reaches it.
	Environment map[string]string `json:"environment,omitempty"`
}

// CommandTool is a supervised process: trusted host code whose argv, cwd,
// environment and stdin runx controls exactly.
type CommandTool struct {
	Command     string             `json:"command"`
	Args        []string           `json:"args,omitempty"`
	Cwd         string             `json:"cwd,omitempty"`
	InputMode   string             `json:"input_mode"` // stdin (default) | env
	Environment CommandEnvironment `json:"environment"`
}

// CommandEnvironment names the host variables a command may receive.
type CommandEnvironment struct {
	Required []string `json:"required,omitempty"`
	Optional []string `json:"optional,omitempty"`
}

// OperationStep calls a connector operation.
type OperationStep struct {
	Ref       string `json:"ref"`       // as written: <connector>/<operation>
	Connector string `json:"connector"` // may be namespaced: fixture/forge
	Operation string `json:"operation"`
	// IdempotencyKey is a literal or a reference; one key means one intent.
	IdempotencyKey string    `json:"idempotency_key,omitempty"`
	Approval       *Approval `json:"approval,omitempty"`
}

// Approval asks for a human decision before an operation is dispatched.
type Approval struct {
	Reason string `json:"reason"`
	Type   string `json:"type,omitempty"`
}

// AgentStep is a bounded agent turn; without a managed agent the run pauses
// needs_agent.
type AgentStep struct {
	Task  string `json:"task"`
	Calls *Calls `json:"calls,omitempty"`
	Ask   bool   `json:"ask,omitempty"` // the turn may ask a human (ask_human)
	// ContextSkills are the skills the turn reads as untrusted advisory
	// context (context.skills): ./ or ../ paths and registry: refs.
	ContextSkills []string `json:"context_skills,omitempty"`
}

// Calls is what a turn or script may call; nothing unnamed is offered.
type Calls struct {
	Tools      []string `json:"tools,omitempty"`
	Operations []string `json:"operations,omitempty"` // <connector>/<operation>
	Skills     []string `json:"skills,omitempty"`
	// Load are the catalog rules a turn may load packages under:
	// <publisher>/<name> patterns, * standing for one whole segment.
	Load []string `json:"load,omitempty"`
}

// AskStep is an explicit human gate: a reason (yes or no) or questions.
type AskStep struct {
	Reason    string      `json:"reason,omitempty"`
	Questions []*Question `json:"questions,omitempty"`
}

// Question is one of at most three an ask step puts to a person.
type Question struct {
	ID       string            `json:"id"`
	Prompt   string            `json:"prompt"`
	Options  []*QuestionOption `json:"options,omitempty"` // at most four, the recommended first
	FreeText bool              `json:"free_text,omitempty"`
	Required *bool             `json:"required,omitempty"` // nil: not stated
}

// QuestionOption is one answer a question offers.
type QuestionOption struct {
	Label  string `json:"label"`
	Detail string `json:"detail,omitempty"`
}

// ScriptStep is JavaScript orchestration through ctx.call, ctx.read, ctx.wait.
type ScriptStep struct {
	Module      string `json:"module"`                // package-relative .js/.mjs
	MaxCalls    int    `json:"max_calls,omitempty"`   // 0: the kernel's ceiling
	Concurrency int    `json:"concurrency,omitempty"` // 0: the kernel's default
	Calls       *Calls `json:"calls,omitempty"`
}

// Retry retries a step that has no effect. A step that declares it may act
// (effects ask or allow, an idempotency key, a human gate or an agent turn)
// may not carry one; admission also checks the capability's effect class.
type Retry struct {
	MaxAttempts       int `json:"max_attempts"`                  // attempts in all, the first included
	RetryAfterSeconds int `json:"retry_after_seconds,omitempty"` // 0: retry at once
}
