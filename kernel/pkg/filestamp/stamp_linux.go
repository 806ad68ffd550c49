package filestamp

import (
	"io/fs"
	"os"
	"syscall"
)

// Of is what stat says of a file; ok is false when it cannot be read, and
// then nothing may be remembered under it.
func Of(path string) (Stamp, bool) {
	info, err := os.Lstat(path)
	if err != nil {
		return Stamp{}, false
	}
	return OfInfo(info)
}

// OfInfo is Of from an Lstat already made.
func OfInfo(info fs.FileInfo) (Stamp, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return Stamp{}, false
	}
	return Stamp{dev: uint64(st.Dev), ino: st.Ino, mode: st.Mode, size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, true
}
