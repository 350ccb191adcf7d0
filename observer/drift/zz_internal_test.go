package drift

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/lookout-go/lookout/observer"
)

func BenchmarkZZShell(b *testing.B) {
	raw, _ := os.ReadFile("/tmp/zzargs.json")
	var args []string
	json.Unmarshal(raw, &args)
	st := New().newState()
	for range b.N {
		st.made, st.cwd = st.made[:0], ""
		clear(st.madeSet)
		for _, a := range args {
			st.findTargets(&observer.ToolCallRecord{ToolName: "bash_command", Arguments: a, Success: true})
		}
	}
}
