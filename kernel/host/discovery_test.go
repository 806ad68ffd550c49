package host

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// buildEcho builds the third-party example plugin as its own binary.
func buildEcho(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "runx-plugin-echo")
	cmd := exec.Command("go", "build", "-o", out, "github.com/runxhq/runx/sdk/examples/echo")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build example plugin: %v\n%s", err, b)
	}
	return out
}

func thirdPartySupervisor(t *testing.T, binary string) (*Supervisor, string) {
	t.Helper()
	root := t.TempDir()
	project := filepath.Join(root, ".runx")
	if err := os.MkdirAll(filepath.Join(project, "plugins"), 0o755); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(binary)
	if err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(project, "plugins", "runx-plugin-echo")
	if err := os.WriteFile(dst, raw, 0o755); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// Self is this test binary, which serves as the launcher (TestMain).
	s, err := NewSupervisor(Config{Discovery: &Discovery{Self: self, ProjectDir: project, HomeDir: filepath.Join(root, "home")}, RunxVersion: "0.1.0-test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s, dst
}

func pin(t *testing.T, project, name, path string) {
	t.Helper()
	sum, err := FileSHA256(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteLock(project, &Lock{Plugins: map[string]LockEntry{name: {SHA256: hex.EncodeToString(sum)}}}); err != nil {
		t.Fatal(err)
	}
}

func TestThirdPartyPlugin(t *testing.T) {
	binary := buildEcho(t)

	t.Run("unpinned is refused by name", func(t *testing.T) {
		s, _ := thirdPartySupervisor(t, binary)
		_, _, err := s.Describe(context.Background(), "echo")
		if hostCode(t, err) != "plugin_unpinned" {
			t.Fatalf("got %v", err)
		}
	})

	t.Run("pinned runs in its own process", func(t *testing.T) {
		s, path := thirdPartySupervisor(t, binary)
		pin(t, filepath.Dir(filepath.Dir(path)), "echo", path)
		res, ref, err := s.Invoke(context.Background(), call("echo.shout", `{"message":"hi"}`), 0)
		if err != nil {
			t.Fatal(err)
		}
		var out struct {
			Shout string
			Pid   int
		}
		if err := json.Unmarshal(res.Output, &out); err != nil {
			t.Fatal(err)
		}
		if out.Shout != "HI" || out.Pid == os.Getpid() || ref.Name != "echo" || ref.Version != "1.0.0" || ref.Protocol != 1 {
			t.Fatalf("got %+v ref %+v", out, ref)
		}
	})

	t.Run("altered binary is refused by name", func(t *testing.T) {
		s, path := thirdPartySupervisor(t, binary)
		pin(t, filepath.Dir(filepath.Dir(path)), "echo", path)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.Write([]byte{0})
		f.Close()
		_, _, err = s.Describe(context.Background(), "echo")
		if hostCode(t, err) != "plugin_checksum_mismatch" {
			t.Fatalf("got %v", err)
		}
	})

	t.Run("missing plugin", func(t *testing.T) {
		s, _ := thirdPartySupervisor(t, binary)
		if _, _, err := s.Describe(context.Background(), "nosuch"); hostCode(t, err) != "plugin_not_found" {
			t.Fatalf("got %v", err)
		}
		if _, _, err := s.Describe(context.Background(), "../etc"); hostCode(t, err) != "plugin_not_found" {
			t.Fatalf("got %v", err)
		}
	})

	t.Run("malformed lock", func(t *testing.T) {
		s, path := thirdPartySupervisor(t, binary)
		project := filepath.Dir(filepath.Dir(path))
		os.WriteFile(filepath.Join(project, LockFileName), []byte(`{"schema":"runx.plugins_lock.v1","plugins":{"echo":{"sha256":"zz"}}}`), 0o644)
		if _, _, err := s.Describe(context.Background(), "echo"); hostCode(t, err) != "plugin_lock_invalid" {
			t.Fatalf("got %v", err)
		}
		os.WriteFile(filepath.Join(project, LockFileName), []byte(`{"schema":"other","extra":1}`), 0o644)
		if _, _, err := s.Describe(context.Background(), "echo"); hostCode(t, err) != "plugin_lock_invalid" {
			t.Fatalf("got %v", err)
		}
	})
}

func TestPluginForNamespaces(t *testing.T) {
	for in, want := range map[string]string{"fs.read": "fs", "store/events.append": "store", "js.module": "js", "bare": "bare"} {
		if got := PluginFor(in); got != want {
			t.Errorf("PluginFor(%q) = %q, want %q", in, got, want)
		}
	}
}
