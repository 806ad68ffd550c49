package receipt

import (
	"errors"
	"io/fs"
	"os"
)

// maxReceiptSize bounds one receipt, written or read. The widest receipt the
// tree bound admits commits 30,001 children at about 180 bytes each, some
// 5.4 MB; the cap leaves room above that and keeps a planted oversized file
// from defeating the verifier's memory bound. Seal refuses to make a receipt
// no verifier would read.
const maxReceiptSize = 8 << 20

// errNotRegular is a receipt path that is a symbolic link or not a regular
// file; the store reads only regular files inside itself.
var errNotRegular = errors.New("not a regular file in the receipt store")

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
