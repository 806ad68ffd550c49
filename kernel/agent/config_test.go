package agent

import (
	"encoding/json"
	"github.com/runxhq/runx/kernel/credential"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/sdk/errcode"
)

func TestConfigSetGetListUnset(t *testing.T) {
	home := t.TempDir()
	c, err := LoadConfig(home)
	if err != nil || *c != (Config{}) {
		t.Fatalf("%+v %v", c, err)
	}
	for k, v := range map[string]string{KeyProvider: "local", KeyModel: "qwen2.5:7b", KeyDialect: DialectChat, KeyEndpointURL: "http://127.0.0.1:11434/v1"} {
		if err := c.Set(home, k, v); err != nil {
			t.Fatalf("set %s: %v", k, err)
		}
	}
	if err := SaveConfig(home, c); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(filepath.Join(home, ConfigFile))
	if info.Mode().Perm() != 0o600 {
		t.Fatalf("config.json mode %v", info.Mode())
	}
	back, err := LoadConfig(home)
	if err != nil || back.Model != "qwen2.5:7b" || len(back.List()) != 4 {
		t.Fatalf("%+v %v", back, err)
	}
	if err := back.Unset(KeyModel); err != nil {
		t.Fatal(err)
	}
	if v, _ := back.Get(KeyModel); v != "" {
		t.Fatal("unset left a value")
	}
}

func TestConfigRefusals(t *testing.T) {
	home := t.TempDir()
	c := &Config{}
	for _, tc := range []struct{ key, value, code string }{
		{"agent.temperature", "1", "config_key_unknown"},
		{KeyProvider, "Open AI", "config_value_invalid"},
		{KeyModel, "", "config_value_invalid"},
		{KeyDialect, "gemini_generate_content", "config_value_invalid"},
		{KeyDialect, "soap", "config_value_invalid"},
		{KeyEndpointURL, "ftp://x", "config_value_invalid"},
		{KeyEndpointURL, "https://user:pw@api.example/v1", "config_value_invalid"},
		{KeyEndpointURL, "https://api.example/v1?key=sk-1", "config_value_invalid"},
		{KeySecret, "sk-ant-api03 with spaces", "config_value_invalid"},
		{KeySecret, "openai", "config_secret_unknown"},
	} {
		if err := c.Set(home, tc.key, tc.value); string(contract.CodeOf(err)) != tc.code {
			t.Errorf("set %s=%q: %v, want %s", tc.key, tc.value, err, tc.code)
		}
	}
	if *c != (Config{}) {
		t.Fatalf("a refused set changed the config: %+v", c)
	}
	os.WriteFile(filepath.Join(home, ConfigFile), []byte(`{"agent":{"api_key":"sk"}}`), 0o600)
	if _, err := LoadConfig(home); contract.CodeOf(err) != errcode.ConfigInvalid {
		t.Fatalf("%v", err)
	}
}

func TestResolve(t *testing.T) {
	home := t.TempDir()
	os.MkdirAll(filepath.Join(home, "secrets"), 0o700)
	os.WriteFile(filepath.Join(home, "secrets", "mine"), []byte("sk-from-secret\n"), 0o600)
	env := map[string]string{"ANTHROPIC_API_KEY": "ak-env", EnvAgentAPIKey: "rk-env", "OPENAI_API_KEY": "ok-env"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	for _, tc := range []struct {
		name string
		c    Config
		code errcode.Code
		want Provider
	}{
		{"no provider", Config{Model: "m"}, errcode.AgentProviderMissing, Provider{}},
		{"no model", Config{Provider: "anthropic"}, errcode.AgentModelMissing, Provider{}},
		{"anthropic env", Config{Provider: "anthropic", Model: "m"}, "", Provider{Name: "anthropic", Model: "m", Dialect: DialectAnthropic, Endpoint: "https://api.anthropic.com/v1", Key: "ak-env"}},
		{"openai secret", Config{Provider: "openai", Model: "m", Secret: "mine"}, "", Provider{Name: "openai", Model: "m", Dialect: DialectResponses, Endpoint: "https://api.openai.com/v1", Key: "sk-from-secret"}},
		{"gemini no key", Config{Provider: "gemini", Model: "m"}, errcode.AgentKeyMissing, Provider{}},
		{"builtin dialect", Config{Provider: "openai", Model: "m", Dialect: DialectChat}, errcode.AgentBuiltinOverride, Provider{}},
		{"own no dialect", Config{Provider: "local", Model: "m", EndpointURL: "http://x/v1"}, errcode.AgentDialectMissing, Provider{}},
		{"own no endpoint", Config{Provider: "local", Model: "m", Dialect: DialectChat}, errcode.AgentEndpointMissing, Provider{}},
		{"own", Config{Provider: "local", Model: "m", Dialect: DialectChat, EndpointURL: "http://x/v1/"}, "", Provider{Name: "local", Model: "m", Dialect: DialectChat, Endpoint: "http://x/v1", Key: "rk-env"}},
		{"own missing secret", Config{Provider: "local", Model: "m", Dialect: DialectChat, EndpointURL: "http://x/v1", Secret: "gone"}, errcode.AgentSecretUnreadable, Provider{}},
	} {
		p, err := Resolve(&tc.c, home, lookup)
		if contract.CodeOf(err) != tc.code && !(tc.code == "" && err == nil) {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
			continue
		}
		if tc.code == "" && *p != tc.want {
			t.Errorf("%s: %+v", tc.name, p)
		}
	}
}

func TestTaintScrubs(t *testing.T) {
	tn := &credential.Taint{}
	tn.Add("sk-secret")
	if got := tn.Scrub("bad key sk-secret."); got != "bad key [redacted]." {
		t.Fatal(got)
	}
	// Scrubbing keeps the document's own member order; compare as JSON.
	var got, want any
	json.Unmarshal(tn.ScrubJSON([]byte(`{"a":["x sk-secret"],"sk-secret":1}`)), &got)
	json.Unmarshal([]byte(`{"[redacted]":1,"a":["x [redacted]"]}`), &want)
	if !reflect.DeepEqual(got, want) {
		t.Fatal(got)
	}
}

func TestProviderMessageBounded(t *testing.T) {
	long := strings.Repeat("é", MaxProviderMessage+10)
	if got := []rune(boundMessage(long)); len(got) != MaxProviderMessage+1 {
		t.Fatalf("bounded to %d runes", len(got))
	}
	if boundMessage("short") != "short" {
		t.Fatal("a short message changed")
	}
}
