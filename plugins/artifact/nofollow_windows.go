//go:build windows

package artifact

// oNoFollow is nothing on Windows, which has no such open flag: a link
// swapped in after the path was resolved is still refused, by the check
// after the open that the file opened is the file resolved (os.SameFile).
const oNoFollow = 0
