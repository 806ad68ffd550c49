package processcmd

import (
	"encoding/base64"
	"encoding/json"
	"fmt"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/run"
	"github.com/spf13/cobra"
)

// ReadOptions are `runx process read`'s arguments.
type ReadOptions struct {
	Factory   *cli.Factory
	ProcessID string
	After     string
	MaxBytes  int
	JSON      bool
}

// NewRead wires `runx process read`. A test passes runF to see the options a
// command line parses to without running anything; nil runs it.
func NewRead(f *cli.Factory, runF func(*ReadOptions) error) *cobra.Command {
	opts := &ReadOptions{Factory: f}
	cmd := &cobra.Command{
		Use:   "read <process-id>",
		Short: "Print a process's output after a cursor, and the next cursor",
		Args:  cli.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			opts.ProcessID = args[0]
			if runF != nil {
				return runF(opts)
			}
			return cli.Exit(runRead(c, opts))
		},
	}
	cmd.Flags().StringVar(&opts.After, "after", "", "the cursor a previous read printed")
	cmd.Flags().IntVar(&opts.MaxBytes, "max-bytes", 0, "most output bytes to print (default 1 MiB, at most 4 MiB)")
	cmd.Flags().BoolVarP(&opts.JSON, "json", "j", false, "print one JSON document (runx.process.output.v1)")
	return cmd
}

type output struct {
	Chunks []struct {
		Stream     string `json:"stream"`
		Data       string `json:"data"`
		DataBase64 string `json:"data_base64"`
	} `json:"chunks"`
	Cursor       string `json:"cursor"`
	DroppedBytes int64  `json:"dropped_bytes"`
	State        string `json:"state"`
	Running      bool   `json:"running"`
}

func runRead(c *cobra.Command, opts *ReadOptions) cli.ExitCode {
	io := opts.Factory.IO
	return opts.Factory.ReadKernel(c.Context(), opts.JSON, func(k *run.Kernel) cli.ExitCode {
		input := map[string]any{"process_id": opts.ProcessID}
		if opts.After != "" {
			input["after"] = opts.After
		}
		if opts.MaxBytes != 0 {
			input["max_bytes"] = opts.MaxBytes
		}
		var doc json.RawMessage
		if err := invoke(c.Context(), k, readCapability, input, &doc); err != nil {
			return cli.ReportError(io, opts.JSON, err)
		}
		if opts.JSON {
			_ = cli.PrintJSON(io.Out, doc)
			return cli.ExitOK
		}
		var out output
		if err := json.Unmarshal(doc, &out); err != nil {
			return cli.ReportError(io, false, err)
		}
		if out.DroppedBytes > 0 {
			fmt.Fprintf(io.Err, "runx: %d bytes before this cursor are no longer kept\n", out.DroppedBytes)
		}
		// The output itself goes to stdout as it was written, stderr's to
		// stderr; the cursor and state are diagnostics.
		for _, ch := range out.Chunks {
			data := []byte(ch.Data)
			if ch.DataBase64 != "" {
				data, _ = base64.StdEncoding.DecodeString(ch.DataBase64)
			}
			w := io.Out
			if ch.Stream == "stderr" {
				w = io.Err
			}
			_, _ = w.Write(data)
		}
		fmt.Fprintf(io.Err, "runx: %s %s; next cursor %s\n", opts.ProcessID, out.State, out.Cursor)
		return cli.ExitOK
	})
}
