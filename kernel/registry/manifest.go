package registry

// ManifestBytes is runx.package.json as packaging writes it for p: what a
// server stores and serves beside the files a publish sent.
func (p *Package) ManifestBytes() ([]byte, error) { return p.manifest() }
