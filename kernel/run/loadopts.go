package run

import "github.com/runxhq/runx/kernel/pkg"

// loadOptions is how the kernel loads packages: as this runx, sharing the
// process's plan cache under the runx home, so an unchanged package's
// run.yaml is parsed once (docs/PERFORMANCE.md, planning).
func loadOptions(runxVersion, home string) pkg.LoadOptions {
	opts := pkg.LoadOptions{RunxVersion: runxVersion}
	if dir := pkg.PlanCacheDir(home); dir != "" {
		opts.Cache = pkg.SharedPlanCache(dir)
	}
	return opts
}

// LoadOptions is loadOptions for the kernel's own runx home, for callers
// above the kernel (runx test) that load packages themselves.
func (k *Kernel) LoadOptions() pkg.LoadOptions {
	return loadOptions(k.Options.RunxVersion, k.Options.HomeDir)
}

// PackageDir finds the package directory a command line names, as `runx
// skill` does: a path, a skill of the workspace, or a core skill (runx/<name>).
func (k *Kernel) PackageDir(ref string) string { return k.locate(ref) }
