package a

// A test may assert a code by its spelling.
var _ = refuse("thing_missing", "")
