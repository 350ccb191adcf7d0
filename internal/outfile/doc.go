// Package outfile writes the files that Lookout's exporters and command
// make, so that a write never goes through what is already at the path.
//
// Write puts the new content in a temporary file beside the target, in
// the same directory, and renames it over the target once it is
// complete: a reader sees the old file or the new one, never half of it,
// and a failed write leaves the old file as it was. The target must be a
// regular file or not exist yet. A symbolic link there (and so what it
// points at), a device, a named pipe, a socket or a directory is refused
// with a *NotRegularError and left as it is; the rename would otherwise
// replace it, or an open would write into it. The file is opened inside
// an os.Root of the directory, so that no link on the way can lead the
// write out of it.
package outfile
