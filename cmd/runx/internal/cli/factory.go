package cli

import (
	"os"

	"github.com/runxhq/runx/kernel/run"
)

// Version is runx's release version.
const Version = "0.1.0"

// Factory opens kernels for commands, carrying the global flags.
type Factory struct {
	IO         *IO
	ReceiptDir string
	// FirstParty names the plugins compiled into this binary.
	FirstParty []string
}

// Options returns kernel options for this invocation.
func (f *Factory) Options() run.Options {
	self, _ := os.Executable()
	return run.Options{
		ReceiptDir:  f.ReceiptDir,
		Self:        self,
		FirstParty:  f.FirstParty,
		RunxVersion: Version,
	}
}

// Kernel opens a kernel with the invocation's options.
func (f *Factory) Kernel() (*run.Kernel, error) {
	return run.Open(f.Options())
}
