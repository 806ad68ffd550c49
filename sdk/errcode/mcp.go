package errcode

// MCP server: runx serving skills and turns as MCP tools.
const (
	// ArgumentMissing: A required tool argument is missing.
	// Do: Give the argument the message names.
	ArgumentMissing Code = "argument_missing"

	// ArgumentUnknown: The tool takes no argument by that name.
	// Do: Use the arguments the message lists.
	ArgumentUnknown Code = "argument_unknown"

	// ArgumentsInvalid: The tool's arguments are not one JSON object, or one has the wrong type.
	// Do: Fix the argument the message names.
	ArgumentsInvalid Code = "arguments_invalid"

	// LocatorUnknown: The turn holds no locator by that name.
	// Do: Use a locator turn_status lists.
	LocatorUnknown Code = "locator_unknown"

	// MCPNoRunOpen: No run is open in this session.
	// Do: Call a skill tool first.
	MCPNoRunOpen Code = "mcp_no_run_open"

	// MCPRunAmbiguous: Several runs are open in this session and no run_id was given.
	// Do: Give run_id.
	MCPRunAmbiguous Code = "mcp_run_ambiguous"

	// MCPToolNameConflict: Two skills would be served under the same tool name.
	// Do: Serve one of them.
	MCPToolNameConflict Code = "mcp_tool_name_conflict"

	// TurnCallsPending: A turn cannot complete while one of its calls waits on a person.
	// Do: Collect the call's answer by making it again with its call_id, then complete.
	TurnCallsPending Code = "turn_calls_pending"
)
