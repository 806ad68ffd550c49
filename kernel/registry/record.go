package registry

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/runxhq/runx/kernel/contract"
	"github.com/runxhq/runx/kernel/pkg/semver"
	"github.com/runxhq/runx/sdk/canon"
	"github.com/runxhq/runx/sdk/errcode"
)

// RecordSchema names the signed record's format.
const RecordSchema = "runx.registry.record.v1"

// MaxRecordBytes bounds a signed record read from a registry or a disk.
const MaxRecordBytes = 1 << 20

// TrustTier is the registry's statement of who stands behind a publisher.
type TrustTier string

// The trust tiers.
const (
	TierFirstParty TrustTier = "first_party"
	TierVerified   TrustTier = "verified"
	TierCommunity  TrustTier = "community"
)

// Valid reports whether t is one of the tiers.
func (t TrustTier) Valid() bool {
	return t == TierFirstParty || t == TierVerified || t == TierCommunity
}

// AlgEd25519 is the one signature algorithm records use.
const AlgEd25519 = "ed25519"

// Record is a published version as its registry signed it; installed, it is
// the package's signature.json.
type Record struct {
	Schema        string             `json:"schema"`
	Registry      string             `json:"registry"`
	Kind          Kind               `json:"kind"`
	Publisher     string             `json:"publisher"`
	Name          string             `json:"name"`
	Version       string             `json:"version"`
	Ref           string             `json:"ref"`
	ContentDigest string             `json:"content_digest"`
	Files         []File             `json:"files"`
	Methods       []Method           `json:"methods"`
	Connectors    []ConnectorBinding `json:"connectors"`
	Operations    []Operation        `json:"operations,omitempty"`
	Description   string             `json:"description"`
	PackageFormat int                `json:"package_format"`
	TrustTier     TrustTier          `json:"trust_tier"`
	PublishedAt   string             `json:"published_at"`
	Signature     *Signature         `json:"signature,omitempty"`
}

// Signature is a record's ed25519 signature.
type Signature struct {
	Alg   string `json:"alg"`
	KeyID string `json:"key_id"`
	Value string `json:"value"` // base64 std
}

// NewRecord is the unsigned record of p published by publisher on
// registry at at.
func NewRecord(p *Package, registry, publisher string, tier TrustTier, at time.Time) *Record {
	rec := &Record{
		Schema: RecordSchema, Registry: NormalizeRegistry(registry), Kind: p.Kind, Publisher: publisher,
		Name: p.Name, Version: p.Version, ContentDigest: p.ContentDigest,
		Files: p.Files, Methods: p.Methods, Connectors: p.Connectors, Operations: p.Operations,
		Description: p.Description, PackageFormat: p.PackageFormat, TrustTier: tier,
		PublishedAt: at.UTC().Format(time.RFC3339),
	}
	rec.Ref = RefOf(rec.Kind, publisher, rec.Name, rec.Version)
	return rec
}

// RefOf is a published version's ref: publisher/name@version for a skill,
// name@version for a connector (whose name is its whole name).
func RefOf(kind Kind, publisher, name, version string) string {
	if kind == KindConnector {
		return name + "@" + version
	}
	return publisher + "/" + name + "@" + version
}

// NormalizeRegistry is a registry URL as records and the trust store hold
// it: without a trailing slash.
func NormalizeRegistry(u string) string {
	return strings.TrimRight(u, "/")
}

// SigningBytes are the bytes a record's signature covers: canonical JSON of
// the record with "signature" removed.
func SigningBytes(rec *Record) ([]byte, error) {
	cp := *rec
	cp.Signature = nil
	return canon.Canonical(&cp)
}

// Sign signs rec with priv, replacing any signature it held.
func Sign(rec *Record, priv ed25519.PrivateKey) error {
	if len(priv) != ed25519.PrivateKeySize {
		return fmt.Errorf("registry: sign: private key is %d bytes, not %d", len(priv), ed25519.PrivateKeySize)
	}
	msg, err := SigningBytes(rec)
	if err != nil {
		return err
	}
	pub := priv.Public().(ed25519.PublicKey)
	rec.Signature = &Signature{Alg: AlgEd25519, KeyID: KeyID(pub), Value: base64.StdEncoding.EncodeToString(ed25519.Sign(priv, msg))}
	return nil
}

// KeyID names a public key: "ed25519:" and the first 16 hex digits of
// sha256 over the key.
func KeyID(pub ed25519.PublicKey) string {
	sum := sha256.Sum256(pub)
	return AlgEd25519 + ":" + hex.EncodeToString(sum[:])[:16]
}

// FormatPublicKey writes a public key as the trust store and `runx registry
// key` do: "ed25519:" and the key in standard base64.
func FormatPublicKey(pub ed25519.PublicKey) string {
	return AlgEd25519 + ":" + base64.StdEncoding.EncodeToString(pub)
}

// ParsePublicKey reads a key FormatPublicKey wrote.
func ParsePublicKey(s string) (ed25519.PublicKey, error) {
	b64, ok := strings.CutPrefix(s, AlgEd25519+":")
	if !ok {
		return nil, contract.Errorf(errcode.RegistryTrustInvalid, "key %q is not ed25519:<base64 public key>", s)
	}
	raw, err := base64.StdEncoding.Strict().DecodeString(b64)
	if err != nil || len(raw) != ed25519.PublicKeySize {
		return nil, contract.Errorf(errcode.RegistryTrustInvalid, "key %q is not a %d-byte ed25519 public key in standard base64", s, ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(raw), nil
}

// ParseRecord reads a signed record strictly: one JSON object of at most
// MaxRecordBytes, no unknown field and no key given twice, so what runx
// verifies is all the record says.
func ParseRecord(raw []byte) (*Record, error) {
	if len(raw) > MaxRecordBytes {
		return nil, contract.Errorf(errcode.RegistryRecordInvalid, "the signed record is over %d bytes", MaxRecordBytes)
	}
	dup, err := contract.DuplicateKey(raw)
	if err != nil {
		return nil, contract.Errorf(errcode.RegistryRecordInvalid, "the signed record is not one JSON object: %v", err)
	}
	if dup != "" {
		return nil, contract.Errorf(errcode.RegistryRecordInvalid, "the signed record gives %s twice", dup)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var rec Record
	if err := dec.Decode(&rec); err != nil {
		return nil, contract.Errorf(errcode.RegistryRecordInvalid, "the signed record is malformed: %v", err)
	}
	return &rec, nil
}

// Marshal is the record as signature.json holds it: indented JSON.
func (rec *Record) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// Check refuses a record that does not describe a package runx could
// install: its schema, kind, names, ref, paths, digests and format, the
// runx.package.json it must name, and the content digest over its files.
// It does not check the signature (Verify does).
func (rec *Record) Check() error {
	bad := func(format string, args ...any) error {
		return contract.Errorf(errcode.RegistryRecordInvalid, "signed record: "+format, args...)
	}
	switch {
	case rec.Schema != RecordSchema:
		return bad("schema is %q, not %s", rec.Schema, RecordSchema)
	case rec.Kind != KindSkill && rec.Kind != KindConnector:
		return bad("kind %q is neither skill nor connector", rec.Kind)
	case rec.PackageFormat != PackageFormat:
		return bad("package_format %d is not the format %d this runx reads", rec.PackageFormat, PackageFormat)
	case !rec.TrustTier.Valid():
		return bad("trust_tier %q is none of first_party, verified, community", rec.TrustTier)
	case rec.Signature == nil:
		return contract.Errorf(errcode.RegistrySignatureInvalid, "the record of %s is not signed", rec.Ref)
	}
	if !validName(rec.Publisher) {
		return contract.Errorf(errcode.RegistryNameInvalid, "signed record: publisher %q cannot name a registry namespace", rec.Publisher)
	}
	if rec.Kind == KindSkill {
		if err := checkName(rec.Name, "skill name"); err != nil {
			return err
		}
		if !semver.Valid(rec.Version) {
			return bad("version %q is not semver", rec.Version)
		}
	} else if err := checkConnectorName(rec.Name); err != nil {
		return err
	} else if ns, _, namespaced := strings.Cut(rec.Name, "/"); namespaced && ns != rec.Publisher {
		return bad("connector %s sits in namespace %s, which publisher %s does not own", rec.Name, ns, rec.Publisher)
	}
	if want := RefOf(rec.Kind, rec.Publisher, rec.Name, rec.Version); rec.Ref != want {
		return bad("ref %q is not %q, what its publisher, name and version make", rec.Ref, want)
	}
	if _, err := time.Parse(time.RFC3339, rec.PublishedAt); err != nil {
		return bad("published_at %q is not an RFC 3339 time", rec.PublishedAt)
	}
	if len(rec.Files) == 0 || len(rec.Files) > MaxFiles+1 {
		return bad("names %d files; a package holds 1 to %d", len(rec.Files), MaxFiles+1)
	}
	paths := make(map[string][]byte, len(rec.Files))
	var total int64
	for i, f := range rec.Files {
		if err := checkPath(f.Path); err != nil {
			return err
		}
		if i > 0 && rec.Files[i-1].Path >= f.Path {
			return bad("files are not sorted by path, each once (%q)", f.Path)
		}
		if !canon.ValidDigest(f.Digest) {
			return bad("file %s has digest %q, not sha256:<64 hex>", f.Path, f.Digest)
		}
		if f.Size < 0 || f.Size > MaxFileBytes {
			return bad("file %s has size %d, outside 0 to %d", f.Path, f.Size, MaxFileBytes)
		}
		total += f.Size
		paths[f.Path] = nil
	}
	if total > MaxPackageBytes {
		return bad("names %d bytes, over the %d byte ceiling on a package", total, MaxPackageBytes)
	}
	if err := checkPaths(paths); err != nil {
		return err
	}
	cd, err := ContentDigest(rec.Files)
	if err != nil {
		return err
	}
	if cd != rec.ContentDigest {
		return bad("content_digest %s is not the digest of the files it names (%s)", rec.ContentDigest, cd)
	}
	if rec.Kind == KindConnector {
		hex, _ := canon.DigestHex(cd)
		if rec.Version != "sha-"+hex[:12] {
			return bad("connector version %q is not sha- and the first 12 hex digits of its content digest", rec.Version)
		}
	}
	manifest, err := manifestBytes(rec.Kind, rec.Name, rec.Version)
	if err != nil {
		return err
	}
	i := findFile(rec.Files, ManifestFile)
	if i < 0 || rec.Files[i].Digest != canon.DigestBytes(manifest) {
		return bad("%s is missing or does not name this %s, %s", ManifestFile, rec.Kind, rec.Ref)
	}
	if rec.Signature.Alg != AlgEd25519 {
		return contract.Errorf(errcode.RegistrySignatureInvalid, "the record of %s is signed with %q; runx verifies ed25519 only", rec.Ref, rec.Signature.Alg)
	}
	return nil
}

func findFile(files []File, p string) int {
	for i, f := range files {
		if f.Path == p {
			return i
		}
	}
	return -1
}
