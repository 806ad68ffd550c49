package run

import (
	"encoding/json"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/datasource"
	"github.com/runxhq/runx/kernel/pkg"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// StoreConnector is the runtime's own data-plane connector: its operations
// are served by the store plugin.
const StoreConnector = "store"

// storeOperations are the exact data operations a step may call.
var storeOperations = map[string]string{
	"events.append": sdk.EffectWrite,
	"events.read":   sdk.EffectRead,
	"key.inspect":   sdk.EffectRead,
	"keys.list":     sdk.EffectRead,
}

// Operation ceilings.
const (
	operationDefaultTimeout = 30 * time.Second
	operationMaxAnswer      = 8 << 20
)

// operationDispatch prepares a store operation: the logical source the
// inputs name resolves to the operator's binding (or, with none named, the
// workspace store under this package), and only the binding's profile
// credential is delivered.
func (rc *runCtx) operationDispatch(step *pkg.Step, inputs map[string]any) (*dispatch, map[string]string, json.RawMessage, error) {
	op := step.Operation
	if op.Connector != StoreConnector || storeOperations[op.Operation] == "" {
		return nil, nil, nil, contract.Errorf("connector_not_installed", "step %s calls %s; this runx serves only the store connector's operations (events.append, events.read, key.inspect, keys.list)", step.ID, op.Ref)
	}
	res := &datasource.Resolver{ProjectDir: rc.e.ProjectDir, Workspace: rc.e.Workspace, LookupEnv: rc.e.LookupEnv}
	var binding *datasource.Binding
	if ref, _ := inputs["data_source_ref"].(string); ref != "" {
		b, err := res.Resolve(ref)
		if err != nil {
			return nil, nil, nil, err
		}
		binding = b
	} else {
		b, err := res.WorkspaceStore()
		if err != nil {
			return nil, nil, nil, err
		}
		binding = b
	}
	creds, err := res.Credentials(binding, rc.e.HomeDir)
	if err != nil {
		return nil, nil, nil, err
	}
	bindingJSON, err := json.Marshal(map[string]any{"data_source": binding, "package": rc.pkg.Name, "project_dir": rc.e.ProjectDir})
	if err != nil {
		return nil, nil, nil, err
	}
	return &dispatch{
		capability: StoreConnector + "/" + op.Operation,
		execution:  execNative,
		input:      inputs,
		timeout:    stepTimeout(step, operationDefaultTimeout),
		maxOutput:  operationMaxAnswer,
		interpret:  decodeOutput,
	}, creds, bindingJSON, nil
}

// operationInputs adds an operation's idempotency key, resolved in the
// step's scope: one key means one intent, and a retry reuses it.
func operationInputs(step *pkg.Step, sc *scope, inputs map[string]any) (map[string]any, error) {
	if step.Operation == nil || step.Operation.IdempotencyKey == "" {
		return inputs, nil
	}
	key, err := resolveString(step.Operation.IdempotencyKey, sc)
	if err != nil {
		return nil, contract.Errorf("idempotency_key_unresolved", "step %s: %v", step.ID, err)
	}
	out := make(map[string]any, len(inputs)+1)
	for k, v := range inputs {
		out[k] = v
	}
	if key != nil {
		out["idempotency_key"] = key
	}
	return out, nil
}
