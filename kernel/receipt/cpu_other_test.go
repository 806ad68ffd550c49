//go:build !linux && !darwin

package receipt

import "time"

func processCPU() (time.Duration, bool) { return 0, false }
