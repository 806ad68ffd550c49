// Package configcmd is `runx config set|get|list|unset`: the agent.* keys
// of the runx home's config.json. A secret is never a configuration value:
// agent.secret names one `runx secret set <name>` holds.
package configcmd

import (
	"fmt"

	"github.com/runxhq/runx/cmd/runx/internal/cli"
	"github.com/runxhq/runx/kernel/agent"
	"github.com/runxhq/runx/kernel/run"
	"github.com/spf13/cobra"
)

// The verbs of `runx config`.
const (
	VerbSet   = "set"
	VerbGet   = "get"
	VerbList  = "list"
	VerbUnset = "unset"
)

// Options are one `runx config` verb's arguments.
type Options struct {
	Factory *cli.Factory
	Verb    string
	Key     string
	Value   string // set only
	JSON    bool
}

// New wires the command. A test passes runF to see the options a command
// line parses to without running anything; nil runs the verb.
func New(f *cli.Factory, runF func(*Options) error) *cobra.Command {
	if runF == nil {
		runF = Run
	}
	var asJSON bool
	cmd := &cobra.Command{Use: "config", Short: "Read and set the runx home's configuration (agent.provider, agent.model, agent.secret, agent.dialect, agent.endpoint_url)"}
	cmd.PersistentFlags().BoolVarP(&asJSON, "json", "j", false, "print one JSON document")
	verb := func(c *cobra.Command, name string) *cobra.Command {
		c.RunE = func(_ *cobra.Command, a []string) error {
			opts := &Options{Factory: f, Verb: name, JSON: asJSON}
			if len(a) > 0 {
				opts.Key = a[0]
			}
			if len(a) > 1 {
				opts.Value = a[1]
			}
			return runF(opts)
		}
		return c
	}
	cmd.AddCommand(
		verb(&cobra.Command{Use: "set <key> <value>", Short: "Set a key (checked before it is written)", Args: cli.ExactArgs(2)}, VerbSet),
		verb(&cobra.Command{Use: "get <key>", Short: "Print a key's value (empty when unset)", Args: cli.ExactArgs(1)}, VerbGet),
		verb(&cobra.Command{Use: "list", Short: "Print every key that is set", Args: cli.NoArgs}, VerbList),
		verb(&cobra.Command{Use: "unset <key>", Short: "Clear a key", Args: cli.ExactArgs(1)}, VerbUnset),
	)
	return cmd
}

// Run runs one verb over the runx home's configuration and presents it.
func Run(opts *Options) error {
	f := opts.Factory
	o, err := run.ResolveOptions(f.Options())
	if err != nil {
		return cli.Exit(cli.ReportError(f.IO, opts.JSON, err))
	}
	c, err := agent.LoadConfig(o.HomeDir)
	if err == nil {
		err = apply(opts, o.HomeDir, c)
	}
	if err != nil {
		return cli.Exit(cli.ReportError(f.IO, opts.JSON, err))
	}
	return nil
}

func apply(opts *Options, home string, c *agent.Config) error {
	print := func(doc map[string]any, human string) error {
		doc["schema"] = "runx.config.v1"
		if opts.JSON {
			return cli.PrintJSON(opts.Factory.IO.Out, doc)
		}
		fmt.Fprint(opts.Factory.IO.Out, human)
		return nil
	}
	switch opts.Verb {
	case VerbSet:
		if err := c.Set(home, opts.Key, opts.Value); err != nil {
			return err
		}
		if err := agent.SaveConfig(home, c); err != nil {
			return err
		}
		return print(map[string]any{"key": opts.Key, "value": opts.Value}, fmt.Sprintf("%s = %s\n", opts.Key, opts.Value))
	case VerbGet:
		v, err := c.Get(opts.Key)
		if err != nil {
			return err
		}
		doc := map[string]any{"key": opts.Key, "value": nil}
		if v != "" {
			doc["value"] = v
		}
		return print(doc, v+"\n")
	case VerbList:
		values := map[string]string{}
		var human string
		for _, kv := range c.List() {
			values[kv[0]] = kv[1]
			human += kv[0] + " = " + kv[1] + "\n"
		}
		return print(map[string]any{"values": values}, human)
	case VerbUnset:
		if err := c.Unset(opts.Key); err != nil {
			return err
		}
		if err := agent.SaveConfig(home, c); err != nil {
			return err
		}
		return print(map[string]any{"key": opts.Key, "value": nil}, "unset "+opts.Key+"\n")
	}
	return cli.Usagef("unknown config verb %q", opts.Verb)
}
