package host

import (
	"errors"
	"fmt"

	"github.com/runxhq/runx/sdk/errcode"
)

// Error is a typed host failure with a stable snake_case code.
type Error struct {
	Code    errcode.Code
	Message string
	Err     error
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

// ErrPluginUnavailable is wrapped by every error meaning the plugin process
// went away under a call: crashed, killed, or its transport broke.
var ErrPluginUnavailable = errors.New("plugin unavailable")

func hostErr(code errcode.Code, err error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Err: err}
}

// Codes.
const (
	CodePluginNotFound         = "plugin_not_found"
	CodePluginUnpinned         = "plugin_unpinned"
	CodePluginChecksumMismatch = "plugin_checksum_mismatch"
	CodePluginLockInvalid      = "plugin_lock_invalid"
	CodeProtocolUnsupported    = "plugin_protocol_unsupported"
	CodePluginStartFailed      = "plugin_start_failed"
	CodeSocketPathTooLong      = "plugin_socket_path_too_long"
	CodePluginCrashed          = "plugin_crashed"
	CodePluginTimeout          = "plugin_timeout"
	CodePluginTransport        = "plugin_transport_failed"
	CodePluginOutputTooLarge   = "plugin_output_too_large"
	CodeCapabilityNotFound     = "capability_not_found"
	CodePluginDescribeMismatch = "plugin_describe_mismatch"
	CodePluginDescribeInvalid  = "plugin_describe_invalid"
	CodeRoleUnserved           = "capability_role_unserved"
	CodeAdapterNotFound        = "data_adapter_not_found"
)

// ErrorCode is the stable code.
func (e *Error) ErrorCode() errcode.Code { return e.Code }
