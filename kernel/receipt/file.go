package receipt

import (
	"errors"
	"io/fs"
	"os"
)

// maxReceiptSize bounds what is read for one receipt. The largest receipt
// runx writes is a script step committing 10,000 calls, about 1.6 MB; the
// bound keeps a planted oversized file from defeating the verifier's memory
// bound.
const maxReceiptSize = 64 << 20

// writeExclusive creates path holding data, syncing it when durable. created
// is false, with no error, when the file already exists. A failed write
// removes its partial file so a retry can succeed.
func writeExclusive(path string, data []byte, durable bool) (created bool, err error) {
	f, err := createExclusive(path)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	err = f.write(data)
	if err == nil && durable {
		err = f.sync()
	}
	if cerr := f.close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return false, err
	}
	return true, nil
}
