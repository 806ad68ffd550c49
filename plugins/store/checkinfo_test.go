package store

import (
	"testing"

	"github.com/runxhq/runx/sdk/plugin"
)

func TestDescribeIsWellFormed(t *testing.T) {
	for _, p := range []plugin.Plugin{New()} {
		info := p.Info()
		if err := plugin.CheckInfo(&info); err != nil {
			t.Error(err)
		}
	}
}
