package scan_test

import (
	"fmt"
	"strings"

	"github.com/lookout-go/lookout/observer/internal/scan"
)

// An evidence line cites a call by index and label, with the reason it
// failed.
func ExampleEvidenceLine() {
	var b strings.Builder
	label := scan.AppendLabel(nil, "write_file", "", `{"path":"/etc/app.conf"}`)
	scan.EvidenceLine(&b, 12, label, false, "permission denied")
	fmt.Println(b.String())
	// Output: #12 write_file path=/etc/app.conf (failed: permission denied)
}
