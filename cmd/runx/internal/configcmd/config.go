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

// New wires the command.
func New(f *cli.Factory) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{Use: "config", Short: "Read and set the runx home's configuration (agent.provider, agent.model, agent.secret, agent.dialect, agent.endpoint_url)"}
	cmd.PersistentFlags().BoolVarP(&asJSON, "json", "j", false, "print one JSON document")
	with := func(fn func(home string, c *agent.Config) error) error {
		o, err := run.ResolveOptions(f.Options())
		if err != nil {
			return cli.Exit(cli.ReportError(f.IO, asJSON, err))
		}
		c, err := agent.LoadConfig(o.HomeDir)
		if err == nil {
			err = fn(o.HomeDir, c)
		}
		if err != nil {
			return cli.Exit(cli.ReportError(f.IO, asJSON, err))
		}
		return nil
	}
	print := func(doc map[string]any, human string) error {
		doc["schema"] = "runx.config.v1"
		if asJSON {
			return cli.PrintJSON(f.IO.Out, doc)
		}
		fmt.Fprint(f.IO.Out, human)
		return nil
	}
	cmd.AddCommand(&cobra.Command{
		Use: "set <key> <value>", Short: "Set a key (checked before it is written)", Args: cobra.ExactArgs(2),
		RunE: func(_ *cobra.Command, a []string) error {
			return with(func(home string, c *agent.Config) error {
				if err := c.Set(home, a[0], a[1]); err != nil {
					return err
				}
				if err := agent.SaveConfig(home, c); err != nil {
					return err
				}
				return print(map[string]any{"key": a[0], "value": a[1]}, fmt.Sprintf("%s = %s\n", a[0], a[1]))
			})
		},
	}, &cobra.Command{
		Use: "get <key>", Short: "Print a key's value (empty when unset)", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, a []string) error {
			return with(func(_ string, c *agent.Config) error {
				v, err := c.Get(a[0])
				if err != nil {
					return err
				}
				doc := map[string]any{"key": a[0], "value": nil}
				if v != "" {
					doc["value"] = v
				}
				return print(doc, v+"\n")
			})
		},
	}, &cobra.Command{
		Use: "list", Short: "Print every key that is set", Args: cobra.NoArgs,
		RunE: func(_ *cobra.Command, _ []string) error {
			return with(func(_ string, c *agent.Config) error {
				values := map[string]string{}
				var human string
				for _, kv := range c.List() {
					values[kv[0]] = kv[1]
					human += kv[0] + " = " + kv[1] + "\n"
				}
				return print(map[string]any{"values": values}, human)
			})
		},
	}, &cobra.Command{
		Use: "unset <key>", Short: "Clear a key", Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, a []string) error {
			return with(func(home string, c *agent.Config) error {
				if err := c.Unset(a[0]); err != nil {
					return err
				}
				if err := agent.SaveConfig(home, c); err != nil {
					return err
				}
				return print(map[string]any{"key": a[0], "value": nil}, "unset "+a[0]+"\n")
			})
		},
	})
	return cmd
}
