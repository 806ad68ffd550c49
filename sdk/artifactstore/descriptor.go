package artifactstore

// DescriptorSchema names a project artifact's descriptor.
const DescriptorSchema = "runx.artifact.v1"

// Descriptor is a project artifact as runx.artifact.v1 names it: a
// reference (ref) the run that holds it pages with artifact.read, and the
// artifact_id, root, digest and size that artifact.open checks before it
// gives any run of the project a reference of its own. It names no host
// path and grants no permission. The artifact capabilities answer it and
// the kernel shows it (a request's payload_artifact), so both read this one
// type.
type Descriptor struct {
	Schema     string `json:"schema"`
	Ref        string `json:"ref,omitempty"`
	ArtifactID string `json:"artifact_id,omitempty"`
	Root       string `json:"root,omitempty"`
	Digest     string `json:"digest"`
	Bytes      int64  `json:"bytes"`
	MediaType  string `json:"media_type"`
	Origin     string `json:"origin,omitempty"`
	Packet     string `json:"packet,omitempty"` // the packet schema its content meets
	Labels     Labels `json:"labels"`
}

// Labels say who may see an artifact's content.
type Labels struct {
	Sharing string `json:"sharing"`
}
