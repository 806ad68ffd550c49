package pkg

import (
	"io/fs"
	"os"
	"syscall"
)

// stampOf is what stat says of a file, for cachedFileDigest; ok is false
// when it cannot be read, and then nothing is remembered.
func stampOf(path string) (fileStamp, bool) {
	info, err := os.Lstat(path)
	if err != nil {
		return fileStamp{}, false
	}
	return stampOfInfo(info)
}

// stampOfInfo is stampOf from an Lstat already made.
func stampOfInfo(info fs.FileInfo) (fileStamp, bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileStamp{}, false
	}
	return fileStamp{dev: uint64(st.Dev), ino: st.Ino, mode: st.Mode, size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano()}, true
}
