package packet

import "sync"

// The kernel's own contract packets register here, each from the file of
// the concern that owns it, through kernelSchema in an init function: a
// JSON Schema document and its id. They are the packets runx itself gives
// a meaning to (an artifact descriptor, a verdict, a skill's context).

var (
	kernelMu   sync.Mutex
	kernelDocs = map[string]map[string]any{}
)

// kernelSchema registers one of the kernel's own packets. It panics on a
// bad schema or a second registration: both are a bug found at start.
func kernelSchema(id string, doc map[string]any) {
	kernelMu.Lock()
	defer kernelMu.Unlock()
	if _, dup := kernelDocs[id]; dup {
		panic("packet: kernel packet " + id + " registered twice")
	}
	if _, err := NewSchema(id, doc, FromKernel, ""); err != nil {
		panic("packet: kernel packet " + id + ": " + err.Error())
	}
	kernelDocs[id] = doc
}

func kernelSchemas() []*Schema {
	kernelMu.Lock()
	defer kernelMu.Unlock()
	out := make([]*Schema, 0, len(kernelDocs))
	for id, doc := range kernelDocs {
		s, _ := NewSchema(id, doc, FromKernel, "")
		out = append(out, s)
	}
	return out
}

// The descriptor of a project artifact is itself a packet: an input typed
// runx.artifact.v1 receives the descriptor, never its content.
func init() {
	digest := map[string]any{"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"}
	kernelSchema(ArtifactPacket, map[string]any{
		"type":     "object",
		"required": []any{"schema", "digest", "bytes"},
		"properties": map[string]any{
			"schema":      map[string]any{"const": ArtifactPacket},
			"ref":         map[string]any{"type": "string"},
			"artifact_id": digest,
			"root":        digest,
			"digest":      digest,
			"bytes":       map[string]any{"type": "integer", "minimum": int64(0)},
			"media_type":  map[string]any{"type": "string"},
			"origin":      map[string]any{"type": "string"},
			"packet":      map[string]any{"type": "string"},
			"labels":      map[string]any{"type": "object"},
		},
	})
}
