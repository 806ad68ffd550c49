package run

import (
	"context"
	"encoding/json"
	"path/filepath"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/datasource"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/kernel/receipt"
	"github.com/runxhq/runx/kernel/run/connector"
	"github.com/runxhq/runx/kernel/run/gate"
	"github.com/runxhq/runx/sdk/errcode"
	"github.com/runxhq/runx/sdk/pathpolicy"
	sdk "github.com/runxhq/runx/sdk/plugin"
)

// Operation ceilings.
const (
	operationDefaultTimeout = 30 * time.Second
	operationMaxAnswer      = 8 << 20
)

// operationCapability is the capability an `operation: <connector>/<op>`
// step calls: the connector plugin's capability of that id.
func operationCapability(op *pkg.OperationStep) string {
	return op.Connector + "/" + op.Operation
}

// operationDispatch prepares a connector operation. A data operation (a
// capability with role data.operation) is told its resolved binding: the
// logical source the inputs name resolves to the operator's binding (or,
// with none named, the workspace store), and only the binding's profile
// credential is delivered. Any other connector operation is sent as is.
func (rc *runCtx) operationDispatch(ctx context.Context, step *pkg.Step, inputs map[string]any) (*dispatch, map[string]string, json.RawMessage, error) {
	mo, err := rc.manifests.Lookup(rc.pkg, step.Operation, rc.e.addedConnectors().With(rc.verified))
	if err != nil {
		return nil, nil, nil, err
	}
	if mo != nil {
		return rc.connectorDispatch(ctx, step, mo, inputs)
	}
	id := operationCapability(step.Operation)
	def := definitionOf(ctx, rc.e.Host, id)
	if def == nil {
		// Preparation's check says why nothing can be dispatched.
		return nil, nil, nil, (&preparation{e: rc.e}).checkOperation(ctx, rc.pkg, step)
	}
	d := &dispatch{
		capability: id,
		def:        def,
		execution:  execNative,
		input:      inputs,
		timeout:    stepTimeout(step, operationDefaultTimeout),
		maxOutput:  operationMaxAnswer,
		interpret:  decodeOutput,
	}
	if !def.HasRole(sdk.RoleDataOperation) {
		// A provider's answer; a data operation's is the store's, which
		// redacts the fields its resource declares secret. A private
		// operation is told its store's directory in the runx home.
		d.interpret = decodeProviderOutput(id)
		b, err := connector.PrivateBinding(def, rc.e.HomeDir, rc.e.CredentialHome, rc.e.Workspace)
		return d, nil, b, err
	}
	res := rc.e.dataSources()
	var binding *datasource.Binding
	if ref, _ := inputs["data_source_ref"].(string); ref != "" {
		binding, err = res.Resolve(ctx, ref)
	} else {
		binding, err = res.WorkspaceStore(ctx)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if err := rc.e.checkStoreFile(binding); err != nil {
		return nil, nil, nil, err
	}
	creds, err := res.Credentials(ctx, binding, rc.e.CredentialResolver().HomeDir)
	if err != nil {
		return nil, nil, nil, err
	}
	bindingJSON, err := json.Marshal(map[string]any{"data_source": binding, "package": rc.pkg.Name, "project_dir": rc.e.ProjectDir})
	if err != nil {
		return nil, nil, nil, err
	}
	return d, creds, bindingJSON, nil
}

// operationInputs adds an operation's idempotency key, resolved in the
// step's scope: one key means one intent, and a retry reuses it.
func operationInputs(step *pkg.Step, sc *scope, inputs map[string]any) (map[string]any, error) {
	if step.Operation == nil || step.Operation.IdempotencyKey == "" {
		return inputs, nil
	}
	key, err := resolveString(step.Operation.IdempotencyKey, sc)
	if err != nil {
		return nil, contract.Errorf(errcode.IdempotencyKeyUnresolved, "step %s: %v", step.ID, err)
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

// checkStoreFile refuses a local store binding whose file lies in runx's
// own places: a store bound to .runx/state.sqlite, a file of the runx home
// or of the receipt store would hand a data operation runx's own state. The
// stores the kernel places itself (the workspace store, store<ext> in the
// project directory, and unbound local:// stores under its data/) are its
// own to place there.
func (e *engine) checkStoreFile(b *datasource.Binding) error {
	ls := e.LocalStore
	if ls.Adapter == "" || ls.PathParam == "" || b.Adapter != ls.Adapter {
		return nil
	}
	p := b.Param(ls.PathParam)
	if p == "" {
		return nil
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.Workspace, p)
	}
	root := gate.ProtectedRoot(e.protectedRoots(), p)
	if root == "" {
		return nil
	}
	if e.ProjectDir != "" {
		lexical, real := filepath.Clean(p), gate.ResolvedPath(p)
		for _, dir := range []string{filepath.Clean(e.ProjectDir), gate.ResolvedPath(e.ProjectDir)} {
			store, data := filepath.Join(dir, "store"+ls.Ext), filepath.Join(dir, "data")
			if (lexical == store || pathpolicy.Within(data, lexical)) && (real == gate.ResolvedPath(store) || pathpolicy.Within(gate.ResolvedPath(data), real)) {
				return nil
			}
		}
	}
	return contract.Errorf(errcode.DataSourcePathProtected, "data source %s is bound to %s, inside %s, where runx keeps its own state; bind the store to a file elsewhere", b.Ref, b.Param(ls.PathParam), root)
}

// operationDefinition is a step's operation as the kernel knows it: from
// its connector manifest, else from the plugin that declares it.
func (rc *runCtx) operationDefinition(ctx context.Context, step *pkg.Step) *sdk.Definition {
	if mo := rc.manifests.Of(rc.pkg, step, rc.e.addedConnectors().With(rc.verified)); mo != nil {
		return mo.Def
	}
	return definitionOf(ctx, rc.e.Host, operationCapability(step.Operation))
}

// connectorDispatch prepares one manifest operation call: its checked
// inputs, the binding, the delivered credential and, for a write, the
// provider key.
func (rc *runCtx) connectorDispatch(ctx context.Context, step *pkg.Step, mo *connector.ManifestOp, inputs map[string]any) (*dispatch, map[string]string, json.RawMessage, error) {
	checked, err := mo.Op.CheckInputs(inputs)
	if err != nil {
		return nil, nil, nil, err
	}
	capability, err := rc.e.roleCapability(ctx, sdk.RoleConnectorRequest)
	if err != nil {
		return nil, nil, nil, err
	}
	b := connector.Binding(mo)
	rc.e.HTTPReplay.Bind(&b)
	var creds map[string]string
	if cr := mo.Connector.Credential; cr != nil {
		v, err := rc.e.CredentialResolver().Resolve(mo.Connector.ID, cr.Variable)
		if err != nil {
			return nil, nil, nil, err
		}
		creds = map[string]string{cr.Variable: v}
	}
	binding, err := json.Marshal(b)
	if err != nil {
		return nil, nil, nil, err
	}
	sink := connector.SinkOf(ctx)
	d := &dispatch{
		capability: capability,
		def:        mo.Def,
		execution:  execNative,
		input:      checked,
		timeout:    stepTimeout(step, operationDefaultTimeout),
		maxOutput:  operationMaxAnswer,
		interpret: func(raw []byte, body *receipt.Body) (any, *contract.ErrorBody) {
			out, failure := connectorAnswer(step.ID, mo, raw)
			if sink != nil && (failure == nil || failure.Code != errcode.ProviderOutputSecretRefused) {
				var resp sdk.ConnectorResponse
				if json.Unmarshal(raw, &resp) == nil {
					sink.Body = resp.Body
				}
			}
			return out, failure
		},
		evidence: rc.e.HTTPReplay.Observe,
	}
	if mo.Op.Verb == pkg.VerbWrite {
		key, _ := inputs["idempotency_key"].(string)
		d.idempotencyKey = connector.ProviderKey(mo, checked, key)
	}
	return d, creds, binding, nil
}

// connectorAnswer turns the connector.request capability's answer into the
// operation's output: the provider's JSON body, held to the operation's
// declared outputs.
func connectorAnswer(stepID string, mo *connector.ManifestOp, raw []byte) (any, *contract.ErrorBody) {
	var resp sdk.ConnectorResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, &contract.ErrorBody{Code: errcode.CapabilityOutputInvalid, Message: "the connector request answered with output that is not a connector response"}
	}
	if failure := connector.RefuseSecretField("operation "+mo.Def.ID, resp.Body); failure != nil {
		return nil, failure
	}
	if len(mo.Op.Outputs) == 0 {
		return resp.Body, nil
	}
	out, err := checkOutputs(stepID, mo.Op.Outputs, resp.Body)
	if err != nil {
		body := contract.BodyOf(err)
		body.Code = errcode.ProviderAnswerInvalid
		body.Message = "operation " + mo.Def.ID + ": the provider's answer does not hold the operation's declared outputs: " + body.Message
		return nil, body
	}
	return out, nil
}

// decodeProviderOutput is decodeOutput for a connector plugin's operation:
// an answer holding a secret's field is refused.
func decodeProviderOutput(id string) func([]byte, *receipt.Body) (any, *contract.ErrorBody) {
	return func(raw []byte, body *receipt.Body) (any, *contract.ErrorBody) {
		out, failure := decodeOutput(raw, body)
		if failure != nil {
			return nil, failure
		}
		if failure := connector.RefuseSecretField("operation "+id, out); failure != nil {
			return nil, failure
		}
		return out, nil
	}
}
