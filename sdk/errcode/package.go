package errcode

// Packages: Skill packages: SKILL.md, run.yaml, methods, steps, inputs, tests and connectors they
// declare.
const (
	// ConnectorInvalid: A connector.yaml breaks its format.
	// Do: Fix the field the message names.
	ConnectorInvalid Code = "connector_invalid"

	// ConnectorVersionAmbiguous: An added connector is installed at several versions and nothing pins
	// one.
	// Do: Remove the other versions.
	ConnectorVersionAmbiguous Code = "connector_version_ambiguous"

	// InputDuplicate: An input is given twice.
	// Do: Give each input once.
	InputDuplicate Code = "input_duplicate"

	// InputMissing: A required input is missing.
	// Do: Give the input the message names.
	InputMissing Code = "input_missing"

	// InputPairInvalid: An -i value is not name=value.
	// Do: Write it as name=value.
	InputPairInvalid Code = "input_pair_invalid"

	// InputTypeInvalid: An input has the wrong type.
	// Do: Give the type the message states.
	InputTypeInvalid Code = "input_type_invalid"

	// InputUnknown: The method or operation takes no input by that name.
	// Do: Use the inputs the message lists.
	InputUnknown Code = "input_unknown"

	// InputsDocumentInvalid: The inputs document is not exactly one JSON object of UTF-8.
	// Do: Give one JSON object.
	InputsDocumentInvalid Code = "inputs_document_invalid"

	// InputsDocumentTooLarge: The inputs document is over its size ceiling.
	// Do: Put large content behind an artifact and pass its reference.
	InputsDocumentTooLarge Code = "inputs_document_too_large"

	// InputsExclusive: --inputs was combined with -i or --input-json.
	// Do: Give the inputs one way.
	InputsExclusive Code = "inputs_exclusive"

	// MethodAmbiguous: The package has several methods, no default_method, and none was named.
	// Do: Name one as <ref>#<method>.
	MethodAmbiguous Code = "method_ambiguous"

	// MethodDescriptionMissing: A method of a package with several methods has no description.
	// Do: Say what the method does and when to use it.
	MethodDescriptionMissing Code = "method_description_missing"

	// MethodInvalid: A method declaration is malformed.
	// Do: Fix the method the message names.
	MethodInvalid Code = "method_invalid"

	// MethodNotFound: The package has no method by that name.
	// Do: Use one of the methods the message lists.
	MethodNotFound Code = "method_not_found"

	// MinimumRunxInvalid: minimum_runx is not a version.
	// Do: Write it as a version, e.g. 0.4.0.
	MinimumRunxInvalid Code = "minimum_runx_invalid"

	// MinimumRunxMissing: run.yaml does not declare minimum_runx.
	// Do: Declare the oldest runx that reads the package.
	MinimumRunxMissing Code = "minimum_runx_missing"

	// MinimumRunxUnsupported: The package needs a newer runx.
	// Do: Upgrade runx.
	MinimumRunxUnsupported Code = "minimum_runx_unsupported"

	// PackageCatalogRoot: A catalog workspace's root was run as a package.
	// Do: Run a skill under skills/, or make the root a package.
	PackageCatalogRoot Code = "package_catalog_root"

	// PackageFileTooLarge: A package file, or the YAML in it, is over its size ceiling.
	// Do: Move large content into a file the package reads at run time.
	PackageFileTooLarge Code = "package_file_too_large"

	// PackageFileUnsupported: A package file is not a regular file.
	// Do: Keep only regular files in the package.
	PackageFileUnsupported Code = "package_file_unsupported"

	// PackageNotFound: No package was named, or none is at the path.
	// Do: Pass a package directory or its SKILL.md.
	PackageNotFound Code = "package_not_found"

	// PackageSymlinkRefused: A package file is a symbolic link.
	// Do: Replace it with a regular file.
	PackageSymlinkRefused Code = "package_symlink_refused"

	// RegistrySkillNotInstalled: A registry skill is not installed in the project and nothing
	// fetched it before the run.
	// Do: Install it with runx registry install, or run it with runx skill and a registry.
	RegistrySkillNotInstalled Code = "registry_skill_not_installed"

	// RegistryUnavailable: A registry package or command needs a registry and none is named.
	// Do: Pass --registry <url> or set RUNX_REGISTRY_URL; or install the package locally and run it from
	// there.
	RegistryUnavailable Code = "registry_unavailable"

	// RunxYAMLAliasRefused: A YAML alias, outside the runx YAML subset.
	// Do: Write the value out.
	RunxYAMLAliasRefused Code = "runx_yaml_alias_refused"

	// RunxYAMLAnchorRefused: A YAML anchor, outside the runx YAML subset.
	// Do: Write the value out.
	RunxYAMLAnchorRefused Code = "runx_yaml_anchor_refused"

	// RunxYAMLDuplicateKey: A YAML key is defined twice.
	// Do: Keep one definition.
	RunxYAMLDuplicateKey Code = "runx_yaml_duplicate_key"

	// RunxYAMLInvalid: A runx YAML file does not parse or breaks its format.
	// Do: Fix it at the line the message names.
	RunxYAMLInvalid Code = "runx_yaml_invalid"

	// RunxYAMLMergeKeyRefused: A YAML merge key (<<), outside the runx YAML subset.
	// Do: Write the fields out.
	RunxYAMLMergeKeyRefused Code = "runx_yaml_merge_key_refused"

	// RunxYAMLMultipleDocuments: A runx YAML file holds more than one document.
	// Do: Remove the document separator.
	RunxYAMLMultipleDocuments Code = "runx_yaml_multiple_documents"

	// RunxYAMLTagRefused: A YAML tag, outside the runx YAML subset.
	// Do: Remove the tag; a value's type comes from how it is written.
	RunxYAMLTagRefused Code = "runx_yaml_tag_refused"

	// RunxYAMLUnknownField: A runx YAML file has a field runx does not know.
	// Do: Use one of the fields the message lists.
	RunxYAMLUnknownField Code = "runx_yaml_unknown_field"

	// SkillMDInvalid: SKILL.md is malformed.
	// Do: Fix it at the place the message names.
	SkillMDInvalid Code = "skill_md_invalid"

	// SkillNotFound: No skill by that name is in the workspace or among the core skills.
	// Do: Check the name, or run it from the package that holds it.
	SkillNotFound Code = "skill_not_found"

	// StepFieldUnsupported: A run.yaml step field the format defines but this runx does not carry out.
	// Do: Remove the field.
	StepFieldUnsupported Code = "step_field_unsupported"

	// StepIDDuplicate: A method declares two steps with the same id.
	// Do: Give each step its own id.
	StepIDDuplicate Code = "step_id_duplicate"

	// StepInvalid: A step declaration is malformed.
	// Do: Fix the step the message names.
	StepInvalid Code = "step_invalid"

	// TestCredentialUnknown: A test's setup.credentials names a variable no connector of the package
	// declares.
	// Do: Name a declared credential variable.
	TestCredentialUnknown Code = "test_credential_unknown"

	// TestFieldUnsupported: A tests/*.yaml field the format defines but this runx does not carry out.
	// Do: Remove the field; a test never passes by ignoring what it declares.
	TestFieldUnsupported Code = "test_field_unsupported"

	// TestInvalid: A test file is malformed.
	// Do: Fix the test the message names.
	TestInvalid Code = "test_invalid"

	// TestMCPConnectorUnknown: A providers.mcp entry names a connector of the package none of whose
	// operations calls an MCP tool.
	// Do: Name a connector whose operations call tools (request: {tool: ...}).
	TestMCPConnectorUnknown Code = "test_mcp_connector_unknown"

	// TestMCPUnmatched: Under runx test, a tool call no providers.mcp entry answers (tool, arguments
	// and session headers); the stand-in MCP server refused it.
	// Do: Declare the call in the test, or fix the operation's arguments or credential.
	TestMCPUnmatched Code = "test_mcp_unmatched"

	// TestOutcomeUnknown: A test's expect.outcome is not an outcome a run can seal with.
	// Do: Use one of the outcomes the message lists.
	TestOutcomeUnknown Code = "test_outcome_unknown"

	// TestProcessUnmatched: Under runx test, a process no providers.processes entry answers; it was
	// not started.
	// Do: Declare the process in the test.
	TestProcessUnmatched Code = "test_process_unmatched"

	// TestsNotFound: The package has no tests.
	// Do: Add tests under tests/.
	TestsNotFound Code = "tests_not_found"
)
