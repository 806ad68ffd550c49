//go:build !linux && !darwin

package receipt

import (
	"fmt"
	"io"
	"os"
)

// readFile reads one receipt, refusing anything but a regular file of at most
// maxReceiptSize bytes.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxReceiptSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxReceiptSize {
		return nil, fmt.Errorf("%s is more than any receipt (%d bytes)", path, maxReceiptSize)
	}
	return data, nil
}
