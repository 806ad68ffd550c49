package process

import (
	"bytes"
	"encoding/json"
	"syscall"
	"testing"
	"time"
)

// BenchmarkReadLog pages a 100 MiB log in process, without the plugin
// protocol: the log read and the output document.
func BenchmarkReadLog(b *testing.B) {
	e := newProcEnv(b)
	p := ok[Process](b, e.invoke(StartCapability, StartRequest{Command: "sh", Args: []string{"-c", "yes 'GET /assets/app.js 200 1834 bytes in 0.42 ms from 127.0.0.1 keep-alive' | head -c 104857600"}}))
	for {
		out := ok[Output](b, e.invoke(ReadCapability, ReadRequest{ProcessID: p.ProcessID, MaxBytes: 1}))
		if !out.Running {
			break
		}
	}
	b.SetBytes(100 << 20)
	cpu0 := cpuTime(b)
	b.ResetTimer()
	defer func() {
		// The machine is shared: MB per CPU second is steadier than wall.
		cpu := cpuTime(b) - cpu0
		b.ReportMetric(float64(100<<20)*float64(b.N)/1e6/cpu.Seconds(), "cpu_MB/s")
	}()
	for i := 0; i < b.N; i++ {
		cursor := ""
		for {
			res := e.invoke(ReadCapability, ReadRequest{ProcessID: p.ProcessID, After: cursor, MaxBytes: 4 << 20})
			var n int
			cursor, n = pageHead(res.Output)
			if n == 0 {
				break
			}
		}
	}
}

func TestOutputJSONMatchesEncodingJSON(t *testing.T) {
	code := 2
	page := &logPage{chunks: []logChunk{
		{stream: streamStdout, pieces: [][]byte{[]byte("plain \"quoted\" \\ tab\t\r\n\x01\x7f"), []byte("é split: \xc3"), []byte("\xa9 done")}, size: 1},
		{stream: streamStderr, pieces: [][]byte{[]byte("bad utf8 \xff\xfe")}, size: 1},
		{stream: streamTerminal, pieces: [][]byte{[]byte("\u2028 line sep")}, size: 1},
	}}
	for i := range page.chunks {
		page.chunks[i].size = len(page.chunks[i].bytes())
	}
	o := &Output{Schema: ProcessOutputSchema, ProcessID: "proc_x", Cursor: "12", Bytes: 3, DroppedBytes: 4, Running: false, State: StateExited, ExitCode: &code, Signal: "killed"}
	var got Output
	if err := json.Unmarshal(appendOutput(nil, o, page), &got); err != nil {
		t.Fatal(err)
	}
	want := []OutputChunk{
		{Stream: "stdout", Data: "plain \"quoted\" \\ tab\t\r\n\x01\x7fé split: é done"},
		{Stream: "stderr", DataBase64: "YmFkIHV0Zjgg//4="},
		{Stream: "terminal", Data: "\u2028 line sep"},
	}
	if len(got.Chunks) != 3 || got.Chunks[0] != want[0] || got.Chunks[1] != want[1] || got.Chunks[2] != want[2] ||
		got.Cursor != "12" || got.Bytes != 3 || got.DroppedBytes != 4 || got.State != StateExited || *got.ExitCode != 2 || got.Signal != "killed" {
		t.Fatalf("got %+v", got)
	}
}

// pageHead reads a page's cursor and byte count, which lead the document,
// without decoding its chunks.
func pageHead(doc []byte) (string, int) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	var cursor string
	n := -1
	dec.Token()
	for cursor == "" || n < 0 {
		key, err := dec.Token()
		if err != nil {
			return cursor, n
		}
		switch key {
		case "cursor":
			dec.Decode(&cursor)
		case "bytes":
			dec.Decode(&n)
		default:
			var skip json.RawMessage
			dec.Decode(&skip)
		}
	}
	return cursor, n
}

func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
