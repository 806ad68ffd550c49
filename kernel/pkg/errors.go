package pkg

import (
	"errors"
	"fmt"
)

// Codes name every refusal this package makes. They are part of runx's public
// contract (`--json` errors carry them), so a code is never renamed or reused.
const (
	CodePackageNotFound        = "package_not_found"
	CodePackageCatalogRoot     = "package_catalog_root"
	CodePackageSymlinkRefused  = "package_symlink_refused"
	CodePackageFileUnsupported = "package_file_unsupported"
	// CodePackageFileTooLarge refuses a package file, or the YAML in it,
	// over its size ceiling before it is parsed.
	CodePackageFileTooLarge      = "package_file_too_large"
	CodeSkillMDInvalid           = "skill_md_invalid"
	CodeYAMLInvalid              = "runx_yaml_invalid"
	CodeYAMLAnchorRefused        = "runx_yaml_anchor_refused"
	CodeYAMLAliasRefused         = "runx_yaml_alias_refused"
	CodeYAMLMergeKeyRefused      = "runx_yaml_merge_key_refused"
	CodeYAMLTagRefused           = "runx_yaml_tag_refused"
	CodeYAMLMultipleDocuments    = "runx_yaml_multiple_documents"
	CodeYAMLDuplicateKey         = "runx_yaml_duplicate_key"
	CodeYAMLUnknownField         = "runx_yaml_unknown_field"
	CodeMinimumRunxUnsupported   = "minimum_runx_unsupported"
	CodeMinimumRunxMissing       = "minimum_runx_missing"
	CodeMinimumRunxInvalid       = "minimum_runx_invalid"
	CodeMethodNotFound           = "method_not_found"
	CodeMethodAmbiguous          = "method_ambiguous"
	CodeMethodDescriptionMissing = "method_description_missing"
	CodeMethodInvalid            = "method_invalid"
	CodeStepInvalid              = "step_invalid"
	CodeStepIDDuplicate          = "step_id_duplicate"
	CodeInputUnknown             = "input_unknown"
	CodeInputMissing             = "input_missing"
	CodeInputTypeInvalid         = "input_type_invalid"
	CodeInputPairInvalid         = "input_pair_invalid"
	CodeInputDuplicate           = "input_duplicate"
	CodeInputsExclusive          = "inputs_exclusive"
	CodeInputsDocumentInvalid    = "inputs_document_invalid"
	CodeInputsDocumentTooLarge   = "inputs_document_too_large"
	CodeTestInvalid              = "test_invalid"
	// CodeTestFieldUnsupported refuses a tests/*.yaml field the format
	// defines but this runx does not carry out, so a test never passes by
	// ignoring what it declares.
	CodeTestFieldUnsupported = "test_field_unsupported"
	// CodeStepFieldUnsupported refuses a run.yaml step field the format
	// defines but this runx does not carry out (an agent's context, a
	// call list's load).
	CodeStepFieldUnsupported = "step_field_unsupported"
	// CodeOutputFieldUnsupported refuses an output contract field this runx
	// does not enforce (packet).
	CodeOutputFieldUnsupported = "output_field_unsupported"
)

// Position is a 1-based line and column in a source file.
type Position struct {
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Error is a refusal: something an author or a caller can fix. A Go error of
// any other type from this package means an I/O failure or a bug.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`

	cause error // what the refusal was made from, for errors.As (a *SchemaError)
}

// Unwrap returns the typed error the refusal was made from, if any.
func (e *Error) Unwrap() error { return e.cause }

// Error prints the location the way compilers do, so editors can jump to it.
func (e *Error) Error() string {
	switch {
	case e.File != "" && e.Line > 0 && e.Column > 0:
		return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Message)
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Message)
	case e.File != "":
		return fmt.Sprintf("%s: %s", e.File, e.Message)
	}
	return e.Message
}

// Is makes errors.Is(err, &Error{Code: c}) match any refusal with code c, so
// callers compare codes without caring about messages or positions.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code != "" && t.Code == e.Code
}

// CodeOf returns the code of the refusal in err's chain, or "" when err is not
// a refusal.
func CodeOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func refuse(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func refuseAt(file string, pos Position, code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), File: file, Line: pos.Line, Column: pos.Column}
}
