// Command devserver is a small HTTP server the process scenarios run as a
// real dev server: it says where it listens, serves its current message,
// and takes "say <text>" lines on stdin to change it.
package main

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
)

func main() {
	var mu sync.Mutex
	message := "hello"
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	go func() {
		_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprint(w, message)
		}))
	}()
	fmt.Printf("listening on http://%s\n", ln.Addr())
	fmt.Fprintln(os.Stderr, "dev server ready")
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		if text, ok := strings.CutPrefix(in.Text(), "say "); ok {
			mu.Lock()
			message = text
			mu.Unlock()
			fmt.Printf("said %s\n", text)
		}
	}
	select {}
}
