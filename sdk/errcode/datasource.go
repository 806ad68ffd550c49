package errcode

// Data sources: Bindings of a package's data sources to stores.
const (
	// DataAdapterNotFound: No plugin this runx knows serves the data adapter a binding names.
	// Do: Install the plugin, or bind the source to an adapter runx has.
	DataAdapterNotFound Code = "data_adapter_not_found"

	// DataAdapterSchemaUnsupported: An adapter declares a binding schema runx cannot check.
	// Do: Fix the adapter plugin's declared schema.
	DataAdapterSchemaUnsupported Code = "data_adapter_schema_unsupported"

	// DataSourcePathProtected: A data source is bound to a file inside runx's own state.
	// Do: Bind the store to a file elsewhere.
	DataSourcePathProtected Code = "data_source_path_protected"

	// DataSourceRefInvalid: A data source reference is not in a form runx reads.
	// Do: Use local://…, tenant://… or runx:data-source:….
	DataSourceRefInvalid Code = "data_source_ref_invalid"

	// DataSourceUnbound: A data source the package uses is not bound to a store.
	// Do: Bind it in the project's data sources file (or RUNX_DATA_SOURCES for one run).
	DataSourceUnbound Code = "data_source_unbound"

	// DataSourcesInvalid: The data sources document is malformed or over its size ceiling.
	// Do: Fix the document at the place the message names.
	DataSourcesInvalid Code = "data_sources_invalid"

	// DataSourcesMissing: RUNX_DATA_SOURCES names a file that does not exist.
	// Do: Create the file or unset RUNX_DATA_SOURCES.
	DataSourcesMissing Code = "data_sources_missing"

	// DataSourcesUnreadable: The data sources document cannot be read.
	// Do: Check the file's permissions.
	DataSourcesUnreadable Code = "data_sources_unreadable"
)
