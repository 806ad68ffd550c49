package errcode

// Packets: Packet schemas, the step outputs kept as artifacts of them and the references that give
// a packet input its content.
const (
	// PacketInvalid: A value does not meet its packet's schema, or a reference names an artifact of
	// another packet.
	// Do: Produce or pass a value that meets the packet's schema (runx skill inspect names it).
	PacketInvalid Code = "packet_invalid"

	// PacketRefDigestMismatch: A packet reference's digest is not its content's.
	// Do: Pass the reference as runx returned it; do not edit a reference or the artifact store.
	PacketRefDigestMismatch Code = "packet_ref_digest_mismatch"

	// PacketRefNotFound: A packet reference names an artifact the project's store does not hold.
	// Do: Pass a reference an earlier call or run returned, or the packet itself.
	PacketRefNotFound Code = "packet_ref_not_found"

	// PacketRefOutsideStore: A packet reference leaves the project's artifact store (another
	// project's store, a path, a URL).
	// Do: Pass the packet itself, or a reference to an artifact this project holds.
	PacketRefOutsideStore Code = "packet_ref_outside_store"

	// PacketSchemaConflict: Two descriptions give one packet id different schemas.
	// Do: Give the packet a new id (a new version) instead of redefining it.
	PacketSchemaConflict Code = "packet_schema_conflict"

	// PacketSchemaInvalid: A declared packet schema has a bad id or does not compile.
	// Do: Name it as dotted lowercase names ending in a version and fix the schema.
	PacketSchemaInvalid Code = "packet_schema_invalid"

	// PacketStoreUnavailable: A packet could not be kept in or read from the project's artifact store.
	// Do: Check the project's state directory is writable, then run again.
	PacketStoreUnavailable Code = "packet_store_unavailable"

	// PacketUnknown: An output or input names a packet no description registers.
	// Do: Declare its schema in the package, or install the plugin that describes it.
	PacketUnknown Code = "packet_unknown"
)
