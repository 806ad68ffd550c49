package doctor

import (
	"fmt"
	"path/filepath"

	"github.com/runxhq/runx/kernel/agent"
	"github.com/runxhq/runx/kernel/contract"
)

// checkAgent reads the managed agent's configuration as --drive would
// resolve it, without asking the provider anything. No agent configured is
// fine: agent steps pause for a host. A configuration --drive would refuse
// is a warning naming the fix; one runx cannot read fails. The key is never
// shown, only where it comes from.
func checkAgent(home string, lookupEnv func(string) (string, bool)) Check {
	c := Check{Check: "agent"}
	cfg, err := agent.LoadConfig(home)
	if err != nil {
		body := contract.BodyOf(err)
		c.Status, c.Detail = StatusFail, fmt.Sprintf("%s [%s]", body.Message, body.Code)
		c.Fix = "fix or remove " + filepath.Join(home, "config.json") + "; runx config set rewrites it whole"
		return c
	}
	if *cfg == (agent.Config{}) {
		c.Status, c.Detail = StatusOK, "no managed agent configured: agent steps pause for a host to answer (runx config set agent.provider lets --drive work them)"
		return c
	}
	if lookupEnv == nil {
		lookupEnv = func(string) (string, bool) { return "", false }
	}
	p, err := agent.Resolve(cfg, home, lookupEnv)
	if err != nil {
		body := contract.BodyOf(err)
		c.Status, c.Detail, c.Fix = StatusWarn, fmt.Sprintf("--drive would be refused: %s [%s]", body.Message, body.Code), "see docs/agents.md"
		return c
	}
	key := "no key (a local server)"
	switch {
	case cfg.Secret != "":
		key = fmt.Sprintf("key from the runx home's secret %q", cfg.Secret)
	case p.Key != "":
		key = "key from the environment"
	}
	c.Status, c.Detail = StatusOK, fmt.Sprintf("--drive uses %s, model %s, %s at %s; %s", p.Name, p.Model, p.Dialect, p.Endpoint, key)
	return c
}
