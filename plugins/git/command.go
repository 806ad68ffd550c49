package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/plugin"
)

const (
	// gitTimeout bounds one git process; a read that takes longer is
	// reported, not waited on.
	gitTimeout = 30 * time.Second
	// gitStderrBytes is how much of stderr is kept to explain a failure.
	gitStderrBytes = 16 << 10
	// gitWaitDelay is how long a killed git has to release its pipes.
	gitWaitDelay = 2 * time.Second
)

var (
	lookOnce sync.Once
	gitPath  string
	lookErr  error
)

// gitBinary finds git on PATH once per process.
func gitBinary() (string, error) {
	lookOnce.Do(func() { gitPath, lookErr = exec.LookPath("git") })
	return gitPath, lookErr
}

// globalArgs come before every subcommand. They switch off what a
// repository's or user's configuration could make a read do besides
// reading: run an fsmonitor hook, verify signatures with gpg, reshape the
// output this package parses, or open an embedded bare repository.
var globalArgs = []string{
	"--no-pager",
	"-c", "core.fsmonitor=false",
	"-c", "core.quotePath=false",
	"-c", "color.ui=never",
	"-c", "log.showSignature=false",
	"-c", "diff.noprefix=false",
	"-c", "diff.mnemonicPrefix=false",
	"-c", "diff.relative=false",
	"-c", "safe.bareRepository=explicit",
}

// gitEnv is the whole environment git runs with: nothing of the plugin's own
// beyond PATH and HOME (for the user's identity and safe.directory), no
// system config, no prompts, no pager, no optional index writes and no lazy
// fetches, so a read never touches the network or the repository.
func gitEnv() []string {
	env := []string{
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_TERMINAL_PROMPT=0",
		"GIT_PAGER=cat",
		"PAGER=cat",
		"GIT_OPTIONAL_LOCKS=0",
		"GIT_NO_LAZY_FETCH=1",
		"LC_ALL=C",
	}
	for _, k := range []string{"PATH", "HOME"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// output is what one git process printed on stdout, cut at limit bytes.
type output struct {
	stdout    []byte
	truncated bool
}

// errGitExit is a git that ran and exited non-zero; its stderr says why.
type errGitExit struct {
	code   int
	stderr string
}

func (e *errGitExit) Error() string { return fmt.Sprintf("git exited %d: %s", e.code, e.stderr) }

// runGit runs git with exact argv (no shell) in dir and reads at most limit
// bytes of stdout. Past the limit it stops git and reports truncated, so a
// huge history costs no more than the bound.
func runGit(ctx context.Context, dir string, limit int, args ...string) (*output, error) {
	bin, err := gitBinary()
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	argv := append(append([]string{"-C", dir}, globalArgs...), args...)
	cmd := exec.CommandContext(ctx, bin, argv...)
	cmd.Env = gitEnv()
	cmd.Dir = dir
	cmd.Stdin = nil
	cmd.WaitDelay = gitWaitDelay
	stderr := &capped{limit: gitStderrBytes}
	cmd.Stderr = stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	out := &output{}
	out.stdout, err = io.ReadAll(io.LimitReader(pipe, int64(limit)+1))
	if len(out.stdout) > limit {
		out.stdout, out.truncated = out.stdout[:limit], true
		_ = cmd.Process.Kill()
	}
	if err != nil && !out.truncated {
		_ = cmd.Process.Kill()
	}
	waitErr := cmd.Wait()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case out.truncated:
		return out, nil
	case err != nil:
		return nil, err
	}
	var exit *exec.ExitError
	if errors.As(waitErr, &exit) {
		return nil, &errGitExit{code: exit.ExitCode(), stderr: strings.TrimSpace(stderr.buf.String())}
	}
	if waitErr != nil {
		return nil, waitErr
	}
	return out, nil
}

// gitFailure turns a runGit error into the call's typed answer.
func gitFailure(ctx context.Context, what string, err error) *plugin.Result {
	var exit *errGitExit
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return plugin.Failed(errcode.GitNotFound, "git is not installed or not on PATH")
	case ctx.Err() != nil:
		return plugin.Failed(errcode.GitCancelled, what+" was cancelled")
	case errors.Is(err, context.DeadlineExceeded):
		return plugin.Failed(errcode.GitTimeout, fmt.Sprintf("%s took longer than %s", what, gitTimeout))
	case errors.As(err, &exit):
		return plugin.Failed(errcode.GitFailed, fmt.Sprintf("%s failed: %s", what, firstLines(exit.stderr, 5)))
	}
	return plugin.Failed(errcode.GitFailed, fmt.Sprintf("%s failed: %v", what, err))
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "; ")
}

// capped keeps the first limit bytes written to it and drops the rest, so
// a chatty stderr cannot grow without bound.
type capped struct {
	buf   bytes.Buffer
	limit int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.limit - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}
