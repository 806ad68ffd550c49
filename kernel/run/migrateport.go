package run

import (
	"context"
	"encoding/json"

	"github.com/runxhq/runx/kernel/datamigrate"
)

// MigrateData is `runx data migrate` (kernel/datamigrate), under this
// kernel's workspace, project lock and plugin host.
func (k *Kernel) MigrateData(ctx context.Context, req datamigrate.Request) (json.RawMessage, error) {
	return datamigrate.Migrate(ctx, datamigrate.Kernel{
		Workspace: k.Options.Workspace, ProjectDir: k.Options.ProjectDir, LockToken: k.engine.LockToken,
		Clock: k.Options.Clock, Host: k.host,
	}, req)
}
