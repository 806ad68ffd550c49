// Package mcp is runx's MCP front (runx mcp): it serves skill methods as MCP
// tools, and the fixed turn tools (turn_list, turn_status, turn_read,
// turn_call, turn_complete, call_cancel) over the runs those calls open or
// over one paused run (runx mcp --run).
//
// A front parses and presents only. Every tool call goes through the
// kernel's own entry points, the ones the CLI uses: Kernel.Skill starts a
// run (admission, authority, floor, receipts), Kernel.Resume continues one,
// Kernel.Turn and Kernel.TurnCall read and work an open turn. Nothing here
// rebuilds a workflow, binds inputs a second way or decides authority.
//
// It must not import plugins/ or cmd/; it writes nothing but protocol to the
// transport it is given.
package mcp
