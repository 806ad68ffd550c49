package registry

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkInstall50Files installs a 50-file skill into a fresh project
// each time: verify, stage, repackage, sign file, rename. The registry
// fetch is the client's and is not counted here.
func BenchmarkInstall50Files(b *testing.B) {
	s := newSigner(b)
	files := skillFiles()
	for i := range 46 {
		files[fmt.Sprintf("assets/file-%02d.txt", i)] = []byte(strings.Repeat("x", 2048+i))
	}
	rec, all := s.publish(b, KindSkill, "acme", files)
	tr := s.trustFor(b, "acme")
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		project := filepath.Join(b.TempDir(), ".runx")
		b.StartTimer()
		if _, err := Install(project, rec, all, tr); err != nil {
			b.Fatal(err)
		}
	}
}
