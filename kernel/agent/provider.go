package agent

import (
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/sdk/errcode"
)

// Dialect names: the wire formats runx speaks.
const (
	DialectChat      = "chat_completions"
	DialectAnthropic = "anthropic_messages"
	DialectResponses = "openai_responses"
	DialectGemini    = "gemini_generate_content"
)

// EnvAgentAPIKey is the key a provider runx does not build in reads when
// agent.secret is unset.
const EnvAgentAPIKey = "RUNX_AGENT_API_KEY"

// builtin is a provider runx knows: its dialect, where it is reached and the
// variable its key is read from when agent.secret is unset. runx names no
// model of its own.
type builtin struct {
	dialect, endpoint, keyVar string
}

var builtins = map[string]builtin{
	"anthropic": {DialectAnthropic, "https://api.anthropic.com/v1", "ANTHROPIC_API_KEY"},
	"openai":    {DialectResponses, "https://api.openai.com/v1", "OPENAI_API_KEY"},
	"gemini":    {DialectGemini, "https://generativelanguage.googleapis.com/v1beta", "GEMINI_API_KEY"},
}

// Provider is a resolved provider: everything a round needs. Key is a
// delivered credential: it enters the run's taint set and never leaves.
type Provider struct {
	Name     string
	Model    string
	Dialect  string
	Endpoint string
	Key      string
}

// Resolve reads the configuration into the provider a managed run uses. A
// built-in provider's key comes from agent.secret, else its own variable; any
// other provider's from agent.secret, else RUNX_AGENT_API_KEY, and it may
// have none (a local server).
func Resolve(c *Config, homeDir string, lookupEnv func(string) (string, bool)) (*Provider, error) {
	if c.Provider == "" {
		return nil, contract.Errorf(errcode.AgentProviderMissing, "a managed run needs a provider: runx config set agent.provider <anthropic|openai|gemini|name>")
	}
	if c.Model == "" {
		return nil, contract.Errorf(errcode.AgentModelMissing, "a managed run needs agent.model: runx names no model of its own (runx config set agent.model <model>)")
	}
	p := &Provider{Name: c.Provider, Model: c.Model, Dialect: c.Dialect, Endpoint: c.EndpointURL}
	b, isBuiltin := builtins[c.Provider]
	keyVar := EnvAgentAPIKey
	if isBuiltin {
		if c.Dialect != "" && c.Dialect != b.dialect {
			return nil, contract.Errorf(errcode.AgentBuiltinOverride, "provider %s speaks %s; unset agent.dialect, or name your own provider to speak %s", c.Provider, b.dialect, c.Dialect)
		}
		p.Dialect, keyVar = b.dialect, b.keyVar
		if p.Endpoint == "" {
			p.Endpoint = b.endpoint
		}
	} else {
		if c.Dialect == "" {
			return nil, contract.Errorf(errcode.AgentDialectMissing, "provider %s is not built in: set agent.dialect (%s)", c.Provider, strings.Join(Dialects(), ", "))
		}
		if c.EndpointURL == "" {
			return nil, contract.Errorf(errcode.AgentEndpointMissing, "provider %s is not built in: set agent.endpoint_url", c.Provider)
		}
	}
	p.Endpoint = strings.TrimRight(p.Endpoint, "/")
	switch {
	case c.Secret != "":
		v, ok, err := credential.ReadSecret(homeDir, c.Secret)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, contract.Errorf(errcode.AgentSecretUnreadable, "agent.secret names %q, which the runx home does not hold; runx secret set %s", c.Secret, c.Secret)
		}
		p.Key = v
	default:
		if v, ok := lookupEnv(keyVar); ok {
			p.Key = strings.TrimSpace(v)
		}
	}
	if p.Key == "" && isBuiltin {
		return nil, contract.Errorf(errcode.AgentKeyMissing, "provider %s needs a key: set %s, or runx secret set <name> and runx config set agent.secret <name>", c.Provider, keyVar)
	}
	return p, nil
}
