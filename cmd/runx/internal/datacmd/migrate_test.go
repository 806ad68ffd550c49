package datacmd

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
)

// A command line missing a required flag is a usage error (exit 2), as one
// JSON document with --json, before any kernel opens.
func TestMigrateUsage(t *testing.T) {
	for _, opts := range []MigrateOptions{
		{Source: "tenant://example/events", JSON: true},
		{Database: ".runx/data/events.sqlite", JSON: true},
	} {
		var out bytes.Buffer
		opts.Factory = &cli.Factory{IO: &cli.IO{Out: &out, Err: &out}}
		if code := RunMigrate(context.Background(), &opts); code != cli.ExitUsage {
			t.Fatalf("exit %d", code)
		}
		var doc struct {
			Schema string `json:"schema"`
			Error  struct {
				Code string `json:"code"`
			} `json:"error"`
		}
		if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.Schema != cli.ErrorDocumentSchema || doc.Error.Code != "usage_error" {
			t.Fatalf("%s %v", out.String(), err)
		}
	}
}

func TestMigratePresentsAProof(t *testing.T) {
	var out bytes.Buffer
	proof := json.RawMessage(`{"status":"migrated","database":"d.sqlite","source":"tenant://x","backup":{"path":"d.bak"},
	  "before":{"state":"legacy_unscoped"},"after":{"events":3,"streams":1,"content_digest":"sha256:ab"},
	  "changes":{"assigned_events":3},"result_digest":"sha256:cd"}`)
	if code := present(&cli.IO{Out: &out}, proof); code != cli.ExitOK {
		t.Fatal(code)
	}
	want := "migrated d.sqlite from legacy_unscoped; 3 events given tenant://x\n  backup  d.bak\n  store   3 events in 1 streams, content sha256:ab\n  proof   sha256:cd\n"
	if out.String() != want {
		t.Fatalf("got %q", out.String())
	}
}
