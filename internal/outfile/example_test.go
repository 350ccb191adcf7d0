package outfile_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/lookout-go/lookout/internal/outfile"
)

func ExampleWrite() {
	dir, _ := os.MkdirTemp("", "outfile")
	defer os.RemoveAll(dir)
	link := filepath.Join(dir, "report.html")
	os.Symlink("/etc/passwd", link)

	err := outfile.Write(dir, "report.html", outfile.Bytes([]byte("<html>")))
	fmt.Println(err != nil, outfile.Kind(err.(*outfile.NotRegularError).Mode))

	err = outfile.Write(dir, "page.html", outfile.Bytes([]byte("<html>")))
	data, _ := os.ReadFile(filepath.Join(dir, "page.html"))
	fmt.Println(err, string(data))
	// Output:
	// true a symbolic link
	// <nil> <html>
}
