package agent

import (
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/sdk/boundedre"
	"github.com/runxhq/runx/sdk/errcode"
)

// ConfigFile is the runx home's configuration file.
const ConfigFile = "config.json"

// The agent.* keys runx config sets.
const (
	KeyProvider    = "agent.provider"
	KeyModel       = "agent.model"
	KeySecret      = "agent.secret"
	KeyDialect     = "agent.dialect"
	KeyEndpointURL = "agent.endpoint_url"
)

// Keys are the keys runx config knows, in the order list shows them.
var Keys = []string{KeyProvider, KeyModel, KeySecret, KeyDialect, KeyEndpointURL}

// Config is the agent section of the runx home's config.json.
type Config struct {
	Provider    string `json:"provider,omitempty"`
	Model       string `json:"model,omitempty"`
	Secret      string `json:"secret,omitempty"`
	Dialect     string `json:"dialect,omitempty"`
	EndpointURL string `json:"endpoint_url,omitempty"`
}

type configFile struct {
	Agent *Config `json:"agent,omitempty"`
}

var (
	namePattern   = boundedre.MustCompile(`^[a-z0-9][a-z0-9._-]*$`, 1, 64)
	modelPattern  = boundedre.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:/@+-]*$`, 1, 200)
	secretPattern = boundedre.MustCompile(`^[A-Za-z0-9._-]+$`, 1, 128)
)

// LoadConfig reads the runx home's agent configuration; a home without the
// file has none. A file runx cannot read whole is refused, never half used.
func LoadConfig(homeDir string) (*Config, error) {
	raw, err := os.ReadFile(filepath.Join(homeDir, ConfigFile))
	if errors.Is(err, os.ErrNotExist) {
		return &Config{}, nil
	}
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	var f configFile
	if err := dec.Decode(&f); err != nil {
		return nil, contract.Errorf(errcode.ConfigInvalid, "%s in the runx home is not a runx configuration (%s); fix or remove it", ConfigFile, firstLine(err.Error()))
	}
	if f.Agent == nil {
		return &Config{}, nil
	}
	return f.Agent, nil
}

// SaveConfig writes the configuration whole (0600, through a rename).
func SaveConfig(homeDir string, c *Config) error {
	if err := os.MkdirAll(homeDir, 0o700); err != nil {
		return err
	}
	f := configFile{}
	if *c != (Config{}) {
		f.Agent = c
	}
	raw, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	tmp := filepath.Join(homeDir, "."+ConfigFile+".tmp")
	if err := os.WriteFile(tmp, append(raw, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(homeDir, ConfigFile))
}

// Get reads one key's value ("" when unset).
func (c *Config) Get(key string) (string, error) {
	p, err := c.field(key)
	if err != nil {
		return "", err
	}
	return *p, nil
}

// Set checks and sets one key. agent.secret names a secret runx secret set
// holds: a key is never a configuration value, so a name the runx home does
// not hold is refused.
func (c *Config) Set(homeDir, key, value string) error {
	p, err := c.field(key)
	if err != nil {
		return err
	}
	if err := checkValue(homeDir, key, value); err != nil {
		return err
	}
	*p = value
	return nil
}

// Unset clears one key.
func (c *Config) Unset(key string) error {
	p, err := c.field(key)
	if err != nil {
		return err
	}
	*p = ""
	return nil
}

// List is every set key with its value, in Keys order.
func (c *Config) List() [][2]string {
	var out [][2]string
	for _, k := range Keys {
		if v, _ := c.Get(k); v != "" {
			out = append(out, [2]string{k, v})
		}
	}
	return out
}

func (c *Config) field(key string) (*string, error) {
	switch key {
	case KeyProvider:
		return &c.Provider, nil
	case KeyModel:
		return &c.Model, nil
	case KeySecret:
		return &c.Secret, nil
	case KeyDialect:
		return &c.Dialect, nil
	case KeyEndpointURL:
		return &c.EndpointURL, nil
	}
	return nil, contract.Errorf(errcode.ConfigKeyUnknown, "runx config knows %s; %q is none of them", strings.Join(Keys, ", "), key)
}

func checkValue(homeDir, key, v string) error {
	invalid := func(why string) error {
		return contract.Errorf(errcode.ConfigValueInvalid, "%s: %s", key, why)
	}
	switch key {
	case KeyProvider:
		if !namePattern.MatchString(v) {
			return invalid("a provider is a lowercase name (anthropic, openai, gemini, or your own)")
		}
	case KeyModel:
		if !modelPattern.MatchString(v) {
			return invalid("a model is the provider's model name: letters, digits and . _ : / @ + -")
		}
	case KeySecret:
		if !secretPattern.MatchString(v) {
			return invalid("agent.secret names a secret kept by runx secret set <name>; it is never the key itself")
		}
		if _, err := os.Stat(credential.SecretPath(homeDir, v)); err != nil {
			return contract.Errorf(errcode.ConfigSecretUnknown, "agent.secret: the runx home holds no secret %q; store it first with runx secret set %s (the key is read from standard input)", v, v)
		}
	case KeyDialect:
		if !slices.Contains(Dialects(), v) {
			return invalid("a dialect is one of " + strings.Join(Dialects(), ", "))
		}
	case KeyEndpointURL:
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return invalid("an endpoint is an http:// or https:// URL")
		}
		if u.User != nil || u.RawQuery != "" || u.Fragment != "" {
			return invalid("an endpoint carries no user, query or fragment: a key goes in runx secret set, never in the URL")
		}
	}
	return nil
}

// Dialects are the wire formats runx speaks to a provider it does not
// build in; gemini's generateContent is its built-in gemini provider's own.
func Dialects() []string {
	d := []string{DialectChat, DialectAnthropic, DialectResponses}
	sort.Strings(d)
	return d
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}
