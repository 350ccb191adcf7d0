package main

import (
	"io/fs"

	"github.com/lookout-go/lookout/internal/outfile"
)

// regularTarget returns an error unless path names a regular file or
// nothing yet: a file written there replaces only those, never a symlink
// (nor what it points at), a device, a FIFO, a socket or a directory.
func regularTarget(path string) error { return outfile.Check(path) }

// kind names the type of a file that is not a regular one.
func kind(m fs.FileMode) string { return outfile.Kind(m) }
