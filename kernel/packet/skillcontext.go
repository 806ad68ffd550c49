package packet

// SkillContextPacket is a context skill as an agent turn reads it
// (docs/agents.md, "Context skills" and "Turn loads"): the SKILL.md an
// agent step's context.skills or a turn's load names, whole, labelled by
// its digest and marked untrusted advisory data. kernel/run/skillctx
// builds it; the turn's receipt names each by its digest under this id.
const SkillContextPacket = "runx.skill.context.v1"

func init() {
	digest := map[string]any{"type": "string", "pattern": "^sha256:[0-9a-f]{64}$"}
	kernelSchema(SkillContextPacket, map[string]any{
		"type":     "object",
		"required": []any{"schema", "ref", "skill", "digest", "bytes", "media_type", "trust", "advisory", "content"},
		"properties": map[string]any{
			"schema":     map[string]any{"const": SkillContextPacket},
			"ref":        map[string]any{"type": "string", "minLength": int64(1)},
			"skill":      map[string]any{"type": "string"},
			"digest":     digest,
			"bytes":      map[string]any{"type": "integer", "minimum": int64(0), "maximum": int64(64 << 10)},
			"media_type": map[string]any{"const": "text/markdown"},
			"trust":      map[string]any{"const": "untrusted"},
			"advisory":   map[string]any{"const": true},
			"registry":   map[string]any{"type": "object"},
			"content":    map[string]any{"type": "string"},
		},
	})
}
