// Package testserver starts real servers for tests: redis-server and
// PostgreSQL on 127.0.0.1 and a free port, with passwords, their data in
// temporary directories, stopped and removed with t.Cleanup.
//
// A test can kill a server mid-flight (SIGKILL to its process group, as a
// crash would) and restart it on the same data, to prove what survives.
//
// Under CI=true a missing server binary fails the test; elsewhere the test is
// skipped with a message saying how to install it. Helpers take testing.TB and
// call t.Fatal only from the test goroutine; Kill is the one method safe from
// any goroutine.
//
// It is test support only: nothing outside _test.go files and test suites may
// import it.
package testserver
