package skillctx

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/packet"
	"github.com/runxhq/runx/kernel/pkg"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// Packet is the packet of a context skill as a turn reads it, in the
// kernel's packet registry (kernel/packet).
const Packet = packet.SkillContextPacket

// Bounds on what a turn reads as context: each SKILL.md, and a turn's
// context skills together. A context skill over either is refused before
// the run starts, never cut.
const (
	MaxBytes      = 64 << 10
	MaxTotalBytes = 256 << 10
)

// MediaType is the media type of a context skill's content: SKILL.md.
const MediaType = "text/markdown"

// Skill is one context skill as its turn reads it: the SKILL.md a ref
// names, labelled by its digest, presented as untrusted advisory data.
type Skill struct {
	Schema string `json:"schema"`
	// Ref is the ref as the step writes it; Skill the package's name.
	Ref       string `json:"ref"`
	Skill     string `json:"skill"`
	Digest    string `json:"digest"`
	Bytes     int64  `json:"bytes"`
	MediaType string `json:"media_type"`
	// Trust is always "untrusted" and Advisory always true: a context
	// skill informs the turn and grants nothing, whoever wrote it.
	Trust    string `json:"trust"`
	Advisory bool   `json:"advisory"`
	// Registry is the provenance an installed package's signature
	// states, nil for a local one.
	Registry *pkg.RegistryIdentity `json:"registry,omitempty"`
	Content  string                `json:"content"`
}

// Resolve loads the package a ref names from the package at fromDir; a
// registry ref reads only the installed copy, verified at the bind.
type Resolve func(fromDir, ref string) (*pkg.Package, string, error)

// Read reads the context skills step s of package p names, in declared
// order, each bounded and digested. A ref that does not resolve keeps its
// code; one over its bound is context_skill_too_large.
func Read(resolve Resolve, p *pkg.Package, s *pkg.Step) ([]Skill, error) {
	if s.Agent == nil || len(s.Agent.ContextSkills) == 0 {
		return nil, nil
	}
	var out []Skill
	var total int64
	for _, ref := range s.Agent.ContextSkills {
		cp, _, err := resolve(p.Dir, ref)
		if err != nil {
			return nil, contract.Errorf(contract.CodeOf(err), "step %s reads context skill %s, which does not resolve: %s", s.ID, ref, err.Error())
		}
		sk, err := Of(s.ID, ref, cp)
		if err != nil {
			return nil, err
		}
		if total += sk.Bytes; total > MaxTotalBytes {
			return nil, contract.Errorf(errcode.ContextSkillTooLarge, "step %s: its context skills come to more than %d bytes together; a turn reads at most that", s.ID, MaxTotalBytes)
		}
		out = append(out, sk)
	}
	return out, nil
}

// Of reads the SKILL.md of package cp, which ref named for step, as a
// context skill, bounded and digested.
func Of(step, ref string, cp *pkg.Package) (Skill, error) {
	content, err := readBounded(filepath.Join(cp.Dir, pkg.SkillFile), step, ref)
	if err != nil {
		return Skill{}, err
	}
	return Skill{Schema: Packet, Ref: ref, Skill: cp.Name, Digest: canon.DigestBytes(content), Bytes: int64(len(content)),
		MediaType: MediaType, Trust: "untrusted", Advisory: true, Registry: cp.Registry, Content: string(content)}, nil
}

// readBounded reads a context skill's SKILL.md, refusing one over
// MaxBytes before reading it, and one that grows past it while read.
func readBounded(path, step, ref string) ([]byte, error) {
	tooLarge := func(n int64) error {
		return contract.Errorf(errcode.ContextSkillTooLarge, "step %s: context skill %s's SKILL.md is %d bytes, over the %d a turn reads of one", step, ref, n, MaxBytes)
	}
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, contract.Errorf(errcode.SkillNotFound, "step %s: context skill %s has no %s", step, ref, pkg.SkillFile)
	case err != nil:
		return nil, err
	case !info.Mode().IsRegular():
		return nil, contract.Errorf(errcode.PackageFileUnsupported, "step %s: context skill %s's %s is not a regular file", step, ref, pkg.SkillFile)
	case info.Size() > MaxBytes:
		return nil, tooLarge(info.Size())
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	content, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	if err != nil {
		return nil, err
	}
	if len(content) > MaxBytes {
		return nil, tooLarge(int64(len(content)))
	}
	return content, nil
}
