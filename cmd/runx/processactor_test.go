package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

const actorSkill = `minimum_runx: 0.1.0
methods:
  start:
    description: Start a long sleeper that says hello.
    steps:
      - id: serve
        tool: process.start
        inputs: { command: sh, args: ["-c", "echo hello from the sleeper; read l; echo got:$l; sleep 120"], max_seconds: 600 }
  read:
    description: Read a process's output.
    inputs:
      process_id: { type: string, required: true }
    steps:
      - id: read
        tool: process.read
        inputs: { process_id: $input.process_id }
  write:
    description: Type a line to a process.
    inputs:
      process_id: { type: string, required: true }
    steps:
      - id: type
        tool: process.write
        inputs: { process_id: $input.process_id, input: "hi\n" }
  stop:
    description: Stop a process.
    inputs:
      process_id: { type: string, required: true }
    steps:
      - id: stop
        tool: process.stop
        inputs: { process_id: $input.process_id }
  list:
    description: List this actor's processes.
    steps:
      - id: list
        tool: process.list
        inputs: {}
  list_other:
    description: Ask for another actor's list.
    steps:
      - id: list
        tool: process.list
        inputs: { actor: "actor:alice" }
`

// asActor is the authority a host states for a run of actor: the host's
// default effects and reach, for someone other than the local person.
func asActor(actor string) string {
	return `{"effects":"allow","reach":"inputs","actor_ref":"` + actor + `"}`
}

// skillAs runs a method under an authority ("" for none) and returns the
// envelope whatever its outcome.
func (e *runxEnv) skillAs(authority, ref string, inputs ...string) skillRun {
	e.t.Helper()
	args := []string{"skill", ref, "--json"}
	if authority != "" {
		args = append(args, "--run-authority", authority)
	}
	for _, in := range inputs {
		args = append(args, "-i", in)
	}
	var r skillRun
	out, _ := e.command(args...).Output()
	if err := json.Unmarshal(out, &r); err != nil {
		e.t.Fatalf("runx %s printed no JSON: %v\n%s", strings.Join(args, " "), err, out)
	}
	return r
}

func errorCode(t *testing.T, r skillRun) string {
	t.Helper()
	var body struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(r.Error, &body)
	return body.Code
}

// TestProcessesBelongToTheirActor: a process belongs to the actor of the
// run that started it, the actor_ref its host stated. A later run of that
// actor reads, writes, lists and stops it; a run of another actor (or the
// local person's) finds no such process and lists none; the person's
// `runx process list --actor` filters by it.
func TestProcessesBelongToTheirActor(t *testing.T) {
	e := newRunxEnv(t)
	e.write("own/SKILL.md", "---\nname: own\ndescription: Processes of an actor.\n---\nManual.\n")
	e.write("own/run.yaml", actorSkill)
	alice, bob := asActor("actor:alice"), asActor("actor:bob")

	started := e.skillAs(alice, "./own#start")
	var p processDoc
	if started.Outcome != "completed" || json.Unmarshal(started.Result, &p) != nil || p.Actor != "actor:alice" || !p.Running {
		t.Fatalf("alice's start: %s %s %s", started.Outcome, started.Result, started.Error)
	}
	e.readUntil(p.ProcessID, regexp.MustCompile(`hello from the sleeper`))

	// Another actor, and the local person's runs, reach nothing of alice's.
	for _, who := range []string{bob, ""} {
		for _, method := range []string{"read", "write", "stop"} {
			r := e.skillAs(who, "./own#"+method, "process_id="+p.ProcessID)
			if r.Outcome == "completed" || errorCode(t, r) != "process_not_found" {
				t.Fatalf("%s by %q: %s %s", method, who, r.Outcome, r.Error)
			}
		}
		var listed processList
		r := e.skillAs(who, "./own#list")
		if r.Outcome != "completed" || json.Unmarshal(r.Result, &listed) != nil || len(listed.Processes) != 0 {
			t.Fatalf("list by %q: %s %s", who, r.Result, r.Error)
		}
	}
	if r := e.skillAs(bob, "./own#list_other"); errorCode(t, r) != "process_actor_forbidden" {
		t.Fatalf("bob asking for alice's list: %s %s", r.Outcome, r.Error)
	}
	// Still running: nothing the others sent reached it.
	var all processList
	e.json(&all, "process", "list", "--json")
	if len(all.Processes) != 1 || !all.Processes[0].Running {
		t.Fatalf("after the others' attempts: %+v", all)
	}

	// Alice's later runs reach it.
	if r := e.skillAs(alice, "./own#write", "process_id="+p.ProcessID); r.Outcome != "completed" {
		t.Fatalf("alice's write: %s %s", r.Outcome, r.Error)
	}
	e.readUntil(p.ProcessID, regexp.MustCompile(`got:hi`))
	var listed processList
	if r := e.skillAs(alice, "./own#list"); json.Unmarshal(r.Result, &listed) != nil || len(listed.Processes) != 1 || listed.Processes[0].ProcessID != p.ProcessID {
		t.Fatalf("alice's list: %s %s", r.Result, r.Error)
	}
	if r := e.skillAs(alice, "./own#read", "process_id="+p.ProcessID); r.Outcome != "completed" || !strings.Contains(string(r.Result), "got:hi") {
		t.Fatalf("alice's read: %s %s", r.Result, r.Error)
	}

	// The person's view filters by actor.
	for actor, want := range map[string]int{"actor:alice": 1, "actor:bob": 0, "local": 0} {
		var only processList
		e.json(&only, "process", "list", "--actor", actor, "--json")
		if len(only.Processes) != want {
			t.Fatalf("--actor %s lists %+v, want %d", actor, only.Processes, want)
		}
	}

	r := e.skillAs(alice, "./own#stop", "process_id="+p.ProcessID)
	var stopped processDoc
	if r.Outcome != "completed" || json.Unmarshal(r.Result, &stopped) != nil || stopped.State != "stopped" {
		t.Fatalf("alice's stop: %s %s", r.Result, r.Error)
	}
}
