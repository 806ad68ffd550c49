package host

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"
	goplugin "github.com/hashicorp/go-plugin"
	"github.com/runxhq/runx/kernel/credential"
	"github.com/runxhq/runx/sdk/errcode"
	sdk "github.com/runxhq/runx/sdk/plugin"
	"github.com/runxhq/runx/sdk/pluginhost"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// envAllowlist is the only host environment a plugin process receives.
// RUNX_TEST_CRASH_AT is a test hook: inert unless a crash test sets it.
var envAllowlist = []string{"PATH", "TMPDIR", "RUNX_LOG", "RUNX_TEST_CRASH_AT"}

// Config configures a Supervisor.
type Config struct {
	Discovery   *Discovery
	RunxVersion string
	Logger      hclog.Logger
	// StartTimeout bounds a plugin's handshake.
	StartTimeout time.Duration
	// FirstParty describes, in process, each plugin compiled into the runx
	// binary, by name: the catalog reads it instead of starting a process.
	FirstParty map[string]func() sdk.Info
	// Taint is the kernel's taint set. Every credential a call delivers
	// joins it before the call is sent, and every answer (output,
	// evidence, message) and host error is scrubbed of it on the way
	// back, so no echo of a delivered value enters a run. nil is an empty
	// set.
	Taint *credential.Taint
}

// Supervisor owns the plugin processes of one kernel process.
type Supervisor struct {
	cfg       Config
	socketDir string

	cat *catalog

	mu      sync.Mutex
	plugins map[string]*instance
	closed  bool
	// starting counts starts in progress (a Prestart's, say): Close waits
	// for them, so none leaves a plugin behind the kernel that stopped.
	starting sync.WaitGroup
	// life ends when Close begins: a start in progress (a Prestart's,
	// whose caller does not wait for it) stops then, its half-started
	// process group killed, rather than holding Close for the start
	// timeout.
	life      context.Context
	endLife   context.CancelFunc
	closeOnce sync.Once
}

// instance is one running plugin process.
type instance struct {
	// ready is closed when the start has finished, with err set.
	ready  chan struct{}
	err    error
	client *goplugin.Client
	rpc    *pluginhost.Client
	info   *sdk.Info
	pid    int
	// endStart ends the context the plugin's process was started under;
	// once the start is over it only tidies (the process is stopped first).
	endStart context.CancelFunc
	// build names this plugin build for its compiled schemas.
	build string
}

// PluginRef records which plugin answered a call, for receipts.
type PluginRef struct {
	Name     string
	Version  string
	Protocol int
	Pid      int
}

// NewSupervisor prepares a supervisor. Plugins start on first use. Unix
// sockets live in a fresh directory only this user can enter, which is what
// protects the channel (go-plugin's AutoMTLS costs ~30 ms per cold start).
func NewSupervisor(cfg Config) (*Supervisor, error) {
	if cfg.Logger == nil {
		cfg.Logger = hclog.NewNullLogger()
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = 15 * time.Second
	}
	dir, err := makeSocketDir(socketBases())
	if err != nil {
		return nil, err
	}
	if cfg.Discovery != nil && cfg.Discovery.FirstParty == nil && cfg.FirstParty != nil {
		cfg.Discovery.FirstParty = map[string]bool{}
		for name := range cfg.FirstParty {
			cfg.Discovery.FirstParty[name] = true
		}
	}
	life, endLife := context.WithCancel(context.Background())
	return &Supervisor{cfg: cfg, socketDir: dir, plugins: map[string]*instance{}, cat: newCatalog(cfg.FirstParty), life: life, endLife: endLife}, nil
}

// Close stops every plugin process in order and removes the socket
// directory. A second Close (an interrupt's beside the command's own)
// returns once the first has stopped everything, so neither lets runx exit
// while a plugin is still draining its processes.
func (s *Supervisor) Close() { s.closeOnce.Do(s.close) }

func (s *Supervisor) close() {
	// An instance's client is written under s.mu by the start that sets it
	// (a Prestart may still be running); one that is still starting sees
	// closed when it sets its client, and kills it itself.
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.endLife()
	// A start in progress sees closed when it has its client, and stops it
	// itself; waiting for it means no plugin is left starting (and then
	// orphaned) when runx exits, at a pause as anywhere.
	s.starting.Wait()
	s.mu.Lock()
	var stop []*instance
	for _, inst := range s.plugins {
		if inst.client != nil {
			stop = append(stop, inst)
		}
	}
	s.plugins = map[string]*instance{}
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, inst := range stop {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stopProcess(inst.client)
			inst.endStart()
		}()
	}
	wg.Wait()
	_ = os.RemoveAll(s.socketDir)
}

// stopProcess stops a plugin (the shutdown RPC, then a kill) and then its
// process group, so a child it started does not outlive it.
func stopProcess(c *goplugin.Client) {
	pid := 0
	if rc := c.ReattachConfig(); rc != nil {
		pid = rc.Pid
	}
	c.Kill()
	killGroup(pid)
}

// get returns the running instance of a plugin, starting it if needed and
// replacing one whose process has exited. A caller whose context ends while
// the plugin starts gets the context's error at once: its own start is
// stopped, and the process it launched killed with its group.
func (s *Supervisor) get(ctx context.Context, name string) (*instance, error) {
	for {
		s.mu.Lock()
		if s.closed {
			s.mu.Unlock()
			return nil, hostErr(errcode.PluginStartFailed, ErrPluginUnavailable, "the plugin host is shut down")
		}
		inst, ok := s.plugins[name]
		if ok && inst.client != nil && inst.client.Exited() {
			delete(s.plugins, name)
			ok = false
		}
		if !ok {
			inst = &instance{ready: make(chan struct{})}
			s.plugins[name] = inst
			s.starting.Add(1)
			s.mu.Unlock()
			inst.err = s.start(ctx, name, inst)
			close(inst.ready)
			s.starting.Done()
			if inst.err != nil {
				s.discard(name, inst)
				return nil, inst.err
			}
			return inst, nil
		}
		s.mu.Unlock()
		select {
		case <-inst.ready:
		case <-ctx.Done():
			return nil, startError(name, ctx.Err())
		}
		if inst.err == nil {
			return inst, nil
		}
		// Another caller's start failed. One it stopped because its own
		// context ended says nothing about this caller's: start afresh.
		if !errors.Is(inst.err, context.Canceled) && !errors.Is(inst.err, context.DeadlineExceeded) || ctx.Err() != nil {
			return nil, inst.err
		}
	}
}

func (s *Supervisor) start(ctx context.Context, name string, inst *instance) error {
	launch, err := s.cfg.Discovery.Resolve(name)
	if err != nil {
		return err
	}
	// The start ends when the caller's context does or Close begins. Its
	// process is bound to startCtx (exec kills it, with its group, when
	// startCtx ends before it exits), so go-plugin's wait for the
	// handshake returns at once instead of at the start timeout. Once the
	// plugin has started, neither can end it any more: only a stop does,
	// which also ends startCtx.
	startCtx, endStart := context.WithCancel(context.Background())
	inst.endStart = endStart
	unwatchCaller := context.AfterFunc(ctx, endStart)
	unwatchClose := context.AfterFunc(s.life, endStart)
	armed := true
	disarm := func() {
		if armed {
			unwatchCaller()
			unwatchClose()
			armed = false
		}
	}
	defer disarm()
	launched := launchers && launch.SHA256 != nil
	started, err := pluginhost.Start(startCtx, func() *goplugin.ClientConfig {
		cmd := exec.CommandContext(startCtx, launch.Path, launch.Args...)
		if launched {
			// Through runx's launcher, which checks the pin itself
			// and outlives the plugin's children (launcher.go).
			cmd = exec.CommandContext(startCtx, s.cfg.Discovery.Self, launchArgs(launch)...)
		}
		cmd.Cancel = func() error {
			err := cmd.Process.Kill()
			killGroup(cmd.Process.Pid)
			return err
		}
		cmd.Env = pluginEnv(s.socketDir)
		cmd.Dir = os.TempDir()
		cmd.SysProcAttr = pluginProcAttr()
		cc := &goplugin.ClientConfig{
			Cmd:              cmd,
			SkipHostEnv:      true,
			Logger:           s.cfg.Logger.Named(name),
			StartTimeout:     s.cfg.StartTimeout,
			UnixSocketConfig: &goplugin.UnixSocketConfig{TempDir: s.socketDir},
		}
		if launch.SHA256 != nil && !launched {
			cc.SecureConfig = &goplugin.SecureConfig{Checksum: launch.SHA256, Hash: sha256.New()}
		}
		return cc
	})
	if err != nil {
		if launched && startCtx.Err() == nil {
			// The launcher refuses a binary that is not the pinned one
			// by its exit status alone: hash it here to say so.
			if sum, herr := FileSHA256(launch.Path); herr == nil {
				if perr := launch.checkPin(sum); perr != nil {
					return perr
				}
			}
		}
		return startError(name, err)
	}
	client, rpc := started.Process, started.Client
	s.mu.Lock()
	inst.client = client
	s.mu.Unlock()
	// get and Pid read an instance's fields under s.mu while another caller
	// may be starting it: every field is written under the same lock.
	info, err := rpc.Describe(startCtx, s.cfg.RunxVersion)
	if err != nil {
		if startCtx.Err() != nil {
			return startError(name, startCtx.Err())
		}
		return hostErr(errcode.PluginStartFailed, err, "plugin %q did not describe itself: %v", name, err)
	}
	if info.ProtocolVersion != sdk.ProtocolVersion {
		return hostErr(errcode.PluginProtocolUnsupported, nil, "plugin %q %s speaks runx.plugin.v%d; this runx speaks v%d", name, info.Version, info.ProtocolVersion, sdk.ProtocolVersion)
	}
	if info.Name != name {
		return hostErr(errcode.PluginDescribeMismatch, nil, "plugin %q describes itself as %q: a plugin's name is its binary's (runx-plugin-<name>) and its capabilities' prefix", name, info.Name)
	}
	if err := sdk.CheckInfo(info); err != nil {
		return hostErr(errcode.PluginDescribeInvalid, err, "plugin %q describes itself badly, so runx does not use it: %v", name, err)
	}
	if want, ok := s.cat.firstPartyInfo(name); ok && launch.FirstParty {
		if err := checkDescribed(want, info); err != nil {
			return err
		}
		info = want
	} else if launch.SHA256 != nil {
		if info, err = s.cat.remember(launch.SHA256, info); err != nil {
			return err
		}
	}
	// Past this point the plugin is started: the caller's end or Close's
	// no longer kills it (Close stops it in order). One that came first
	// fails the start, whose process the caller's discard stops.
	disarm()
	if startCtx.Err() != nil {
		return startError(name, startCtx.Err())
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		return hostErr(errcode.PluginStartFailed, ErrPluginUnavailable, "the plugin host is shut down")
	}
	pid := 0
	if rc := client.ReattachConfig(); rc != nil {
		pid = rc.Pid
	}
	s.mu.Lock()
	inst.rpc, inst.info, inst.build, inst.pid = rpc, info, identity(launch, info), pid
	s.mu.Unlock()
	return nil
}

func startError(name string, err error) error {
	var pe *pluginhost.ProtocolError
	if errors.As(err, &pe) {
		return hostErr(errcode.PluginProtocolUnsupported, err, "plugin %q speaks runx.plugin.v%d; this runx speaks runx.plugin.v%d", name, pe.Version, pe.Supported)
	}
	if errors.Is(err, context.Canceled) {
		// A stop (runx closing its plugins, or the caller's own end) cut
		// the start short: nothing was sent, and the code is the stop's.
		return hostErr(errcode.Interrupted, err, "plugin %q was stopped while it started, so nothing was sent to it", name)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return hostErr(errcode.PluginStartFailed, err, "plugin %q did not start before the call's deadline: %v", name, err)
	}
	if errors.Is(err, goplugin.ErrChecksumsDoNotMatch) {
		return hostErr(errcode.PluginChecksumMismatch, err, "plugin %q changed after it was checked against its pin; runx refuses it", name)
	}
	return hostErr(errcode.PluginStartFailed, err, "plugin %q failed to start: %v", name, err)
}

func pluginEnv(socketDir string) []string {
	env := []string{goplugin.EnvUnixSocketDir + "=" + socketDir}
	for _, k := range envAllowlist {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// discard kills an instance and forgets it, so the next call starts afresh.
func (s *Supervisor) discard(name string, inst *instance) {
	s.mu.Lock()
	if s.plugins[name] == inst {
		delete(s.plugins, name)
	}
	closed := s.closed
	s.mu.Unlock()
	if closed && inst.err == nil {
		// Close is shutting it down in order (its processes drain within
		// the grace): a kill here would cut that short. A start that
		// failed is still this caller's to stop.
		return
	}
	if inst.client != nil {
		stopProcess(inst.client)
	}
	if inst.endStart != nil {
		inst.endStart()
	}
}

// Describe starts (if needed) the named plugin and returns its description.
func (s *Supervisor) Describe(ctx context.Context, name string) (*sdk.Info, PluginRef, error) {
	inst, err := s.get(ctx, name)
	if err != nil {
		return nil, PluginRef{}, err
	}
	return inst.info, inst.ref(), nil
}

func (inst *instance) ref() PluginRef {
	return PluginRef{Name: inst.info.Name, Version: inst.info.Version, Protocol: inst.info.ProtocolVersion, Pid: inst.pid}
}

// Definition returns the description of one capability from its plugin.
// A first-party plugin's comes from the catalog without starting it.
func (s *Supervisor) Definition(ctx context.Context, capability string) (*sdk.Definition, PluginRef, error) {
	name := PluginFor(capability)
	var ref PluginRef
	info, ok := s.cat.firstPartyInfo(name)
	if ok {
		ref = PluginRef{Name: info.Name, Version: info.Version, Protocol: info.ProtocolVersion, Pid: s.Pid(name)}
	} else {
		var err error
		if info, ref, err = s.Describe(ctx, name); err != nil {
			return nil, ref, err
		}
	}
	if def := info.Find(capability); def != nil {
		return def, ref, nil
	}
	return nil, ref, hostErr(errcode.CapabilityNotFound, nil, "plugin %q serves no capability %q", ref.Name, capability)
}

// Invoke runs one call on the plugin that owns its capability. A typed
// refusal or failure from the plugin comes back as a Result; a host failure
// (start, crash, timeout, transport) as an *Error. A call that may have had an
// effect is never sent again.
func (s *Supervisor) Invoke(ctx context.Context, call *sdk.Call, maxOutput int64) (*sdk.Result, PluginRef, error) {
	name := PluginFor(call.Capability)
	inst, err := s.get(ctx, name)
	if err != nil {
		return nil, PluginRef{}, err
	}
	ref := inst.ref()
	var schemas *capabilitySchemas
	if def := inst.info.Find(call.Capability); def != nil {
		schemas = s.cat.schemasFor(inst.build, def)
		if refusal := schemas.checkInput(name, call); refusal != nil {
			return refusal, ref, nil
		}
	}
	s.deliver(call)
	res, err := inst.rpc.Invoke(ctx, call, maxOutput)
	if err != nil {
		s.discard(name, inst)
		return nil, ref, s.scrubError(s.invokeError(ctx, name, inst, err))
	}
	if res.DiscardWorker {
		s.discard(name, inst)
	}
	s.scrubResult(res)
	if schemas != nil {
		res = schemas.checkOutput(name, call, res)
	}
	return res, ref, nil
}

// deliver puts the credentials a call carries into the taint set before
// they leave the kernel: once delivered, a value is scrubbed wherever it
// comes back.
func (s *Supervisor) deliver(call *sdk.Call) {
	for _, v := range call.Context.Credentials {
		s.cfg.Taint.Add(v)
	}
}

// scrubResult replaces every tainted value in a plugin's answer, in place,
// before the kernel reads it: a plugin that echoes a credential it was
// given (in its output, evidence or message) hands runx only the marker.
func (s *Supervisor) scrubResult(res *sdk.Result) {
	t := s.cfg.Taint
	if t.Empty() {
		return
	}
	res.Output = t.ScrubJSON(res.Output)
	res.Evidence = t.ScrubJSON(res.Evidence)
	res.Message = t.Scrub(res.Message)
	res.Code = errcode.Code(t.Scrub(string(res.Code)))
}

// scrubError scrubs a host error's message, which may quote what a plugin
// sent (a transport error's text).
func (s *Supervisor) scrubError(err error) error {
	var he *Error
	if errors.As(err, &he) {
		he.Message = s.cfg.Taint.Scrub(he.Message)
		return err
	}
	return s.cfg.Taint.Error(err)
}

func (s *Supervisor) invokeError(ctx context.Context, name string, inst *instance, err error) error {
	switch {
	case errors.Is(err, pluginhost.ErrOutputTooLarge):
		return hostErr(errcode.PluginOutputTooLarge, err, "plugin %q: %v", name, err)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return hostErr(errcode.PluginTimeout, ErrPluginUnavailable, "plugin %q did not answer before the call's deadline; its process was stopped", name)
	case ctx.Err() != nil:
		return hostErr(errcode.CallCancelled, ctx.Err(), "the call to plugin %q was cancelled", name)
	}
	if st, ok := status.FromError(err); ok && st.Code() == codes.Unavailable || inst.client.Exited() {
		return hostErr(errcode.PluginCrashed, fmt.Errorf("%w: %v", ErrPluginUnavailable, err), "plugin %q exited during the call; the call failed and the next call starts a fresh process", name)
	}
	return hostErr(errcode.PluginTransportFailed, fmt.Errorf("%w: %v", ErrPluginUnavailable, err), "plugin %q broke the protocol: %v", name, err)
}

// Cancel asks the owning plugin to cancel one in-flight call.
func (s *Supervisor) Cancel(ctx context.Context, capability, callID string) (string, error) {
	inst, err := s.get(ctx, PluginFor(capability))
	if err != nil {
		return "", err
	}
	return inst.rpc.Cancel(ctx, callID)
}

// Pid returns the process id of a running plugin, or 0.
func (s *Supervisor) Pid(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if inst, ok := s.plugins[name]; ok && inst.info != nil {
		return inst.pid
	}
	return 0
}

// EffectOf returns a capability's declared effect class.
func (s *Supervisor) EffectOf(ctx context.Context, capability string) (string, error) {
	def, _, err := s.Definition(ctx, capability)
	if err != nil {
		return "", err
	}
	return def.Effect, nil
}

// Prestart starts the named plugins in the background, so a process start
// overlaps the kernel's own preparation; the first call waits only for what
// is left of it. A failure is reported by that call, not here.
func (s *Supervisor) Prestart(ctx context.Context, names ...string) {
	for _, name := range names {
		go func() { _, _ = s.get(context.WithoutCancel(ctx), name) }()
	}
}
