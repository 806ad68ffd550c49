package fs

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

// Two writes of one file against the same digest race; the commit lock and
// the final check let exactly one through, whether they share a process or
// not.

func TestConcurrentWritesInOneProcessOnePasses(t *testing.T) {
	root := workspace(t, map[string]string{"shared.txt": "round 0"})
	p := New()
	for round := range 20 {
		current := fmt.Sprintf("round %d", round)
		results := make([]*plugin.Result, 2)
		var wg sync.WaitGroup
		for w := range 2 {
			in, _ := json.Marshal(WriteRequest{Path: "shared.txt", Content: str(fmt.Sprintf("round %d", round+1)), ExpectedDigest: digest(current)})
			c := &plugin.Call{Capability: CapabilityWrite, Context: changeContext(root), Input: in}
			wg.Go(func() { results[w] = p.Invoke(context.Background(), c) })
		}
		wg.Wait()
		passed := 0
		for _, res := range results {
			switch {
			case res.Status == plugin.StatusOK:
				passed++
			case res.Code != errcode.FSDigestMismatch:
				t.Fatalf("round %d: the loser was refused %s (%s), want %s", round, res.Code, res.Message, errcode.FSDigestMismatch)
			}
		}
		if passed != 1 {
			t.Fatalf("round %d: %d writes passed the digest check", round, passed)
		}
	}
}

func TestConcurrentWritesInTwoProcessesOnePasses(t *testing.T) {
	root := workspace(t, map[string]string{"shared.txt": "round 0"})
	for round := range 5 {
		current := fmt.Sprintf("round %d", round)
		type child struct {
			cmd *exec.Cmd
			out interface{ Bytes() []byte }
		}
		var children []child
		for w := range 2 {
			req := WriteRequest{Path: "shared.txt", Content: str(fmt.Sprintf("round %d by %d", round+1, w)), ExpectedDigest: digest(current)}
			cmd, out := startChild(t, CapabilityWrite, changeContext(root), req)
			children = append(children, child{cmd, out})
		}
		passed, winner := 0, ""
		for w, c := range children {
			if err := c.cmd.Wait(); err != nil {
				t.Fatalf("child %d: %v", w, err)
			}
			var res childResult
			must(t, json.Unmarshal(c.out.Bytes(), &res))
			switch {
			case res.Status == plugin.StatusOK:
				passed++
				winner = fmt.Sprintf("round %d by %d", round+1, w)
			case res.Code != "fs_digest_mismatch":
				t.Fatalf("round %d: the loser was refused %s (%s)", round, res.Code, res.Message)
			}
		}
		if passed != 1 {
			t.Fatalf("round %d: %d writes passed the digest check", round, passed)
		}
		got := readFile(t, filepath.Join(root, "shared.txt"))
		if got != winner {
			t.Fatalf("round %d: file holds %q, the winner wrote %q", round, got, winner)
		}
		// Next round starts from whatever won.
		must(t, os.WriteFile(filepath.Join(root, "shared.txt"), []byte(fmt.Sprintf("round %d", round+1)), 0o644))
	}
}
