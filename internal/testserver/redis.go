package testserver

import (
	"bufio"
	"fmt"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Redis is a redis-server started for a test on 127.0.0.1 and a free port,
// with a password, append-only persistence and its data in a temporary
// directory. It is stopped when the test ends.
type Redis struct {
	server
	// Addr is host:port.
	Addr string
	// Password is the server's password. It reaches a driver only as a
	// credential, never inside an endpoint.
	Password string
	dir      string
}

// StartRedis starts a redis-server and waits until it answers.
//
// Persistence is appendonly with fsync every second: Redis writes the AOF
// before it replies, so an acknowledged write survives the process being
// killed (not the host losing power, which no test simulates).
func StartRedis(t testing.TB) *Redis {
	t.Helper()
	bin, _ := exec.LookPath("redis-server")
	bin = requireBinary(t, bin, "redis-server", "apt-get install redis-server")
	r := &Redis{
		Addr:     "127.0.0.1:" + strconv.Itoa(freePort(t)),
		Password: randomSecret(t),
		dir:      t.TempDir(),
	}
	_, port, _ := net.SplitHostPort(r.Addr)
	r.log = filepath.Join(r.dir, "redis.log")
	r.sig = syscall.SIGTERM
	r.start = func() (*process, error) {
		cmd := exec.Command(bin,
			"--bind", "127.0.0.1", "--port", port, "--dir", r.dir,
			"--requirepass", r.Password,
			"--appendonly", "yes", "--appendfsync", "everysec", "--save", "",
			"--daemonize", "no", "--protected-mode", "yes",
			"--logfile", "")
		return startProcess(cmd, r.log)
	}
	r.ready = r.ping
	r.launch(t)
	t.Cleanup(r.shutdown)
	return r
}

// Endpoint is the server's URL without credentials, as a binding names it.
func (r *Redis) Endpoint() string {
	return "redis://" + r.Addr + "/0"
}

// ping authenticates and pings over raw RESP, so readiness needs no client
// library. While it loads its append-only file Redis answers -LOADING.
func (r *Redis) ping() error {
	conn, err := net.DialTimeout("tcp", r.Addr, time.Second)
	if err != nil {
		return err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(2 * time.Second))
	fmt.Fprintf(conn, "*2\r\n$4\r\nAUTH\r\n$%d\r\n%s\r\n*1\r\n$4\r\nPING\r\n", len(r.Password), r.Password)
	br := bufio.NewReader(conn)
	for _, want := range []string{"+OK", "+PONG"} {
		line, err := br.ReadString('\n')
		if err != nil {
			return err
		}
		if strings.TrimSpace(line) != want {
			return fmt.Errorf("redis answered %q", strings.TrimSpace(line))
		}
	}
	return nil
}
