package pkg

import "github.com/runxhq/runx/kernel/pkg/names"

// The syntax of names, in kernel/pkg/names.
var (
	isName, isCapabilityID, isEnvName  = names.IsName, names.IsCapabilityID, names.IsEnvName
	splitOperationRef, cleanModulePath = names.SplitOperationRef, names.CleanModulePath
	isPackageRelative, hasSpace        = names.IsPackageRelative, names.HasSpace
)
