package outfile_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/internal/outfile"
)

func TestWriteMakesAndReplacesAPrivateFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new")
	assert.ErrorIs(t, outfile.Write(dir, "a.json", outfile.Bytes([]byte("one"))), os.ErrNotExist, "a missing directory is not made")
	require.NoError(t, os.Mkdir(dir, 0o700))
	require.NoError(t, outfile.Write(dir, "a.json", outfile.Bytes([]byte("one"))))
	path := filepath.Join(dir, "a.json")
	require.NoError(t, os.Chmod(path, 0o644))
	require.NoError(t, outfile.Write(dir, "a.json", outfile.Bytes([]byte("two"))))

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "two", string(data))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	assertOnly(t, dir, "a.json")
}

func TestAFailedWriteLeavesTheOldFile(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.json"), []byte("old"), 0o600))
	boom := errors.New("boom")
	err := outfile.Write(dir, "a.json", func(w io.Writer) error {
		if _, err := w.Write([]byte("half")); err != nil {
			return err
		}
		return boom
	})
	require.ErrorIs(t, err, boom)
	data, err := os.ReadFile(filepath.Join(dir, "a.json"))
	require.NoError(t, err)
	assert.Equal(t, "old", string(data))
	assertOnly(t, dir, "a.json")
}

func TestWriteRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	require.NoError(t, os.WriteFile(target, []byte("keep"), 0o600))
	require.NoError(t, os.Symlink(target, filepath.Join(dir, "link")))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "sub"), 0o700))

	for name, kind := range map[string]string{"link": "a symbolic link", "sub": "a directory"} {
		err := outfile.Write(dir, name, outfile.Bytes([]byte("new")))
		var nr *outfile.NotRegularError
		require.ErrorAs(t, err, &nr, name)
		assert.Equal(t, filepath.Join(dir, name)+" is "+kind+", not a regular file; give the path of a regular file or of a new one", err.Error())
		assert.ErrorAs(t, outfile.Check(filepath.Join(dir, name)), &nr)
	}
	data, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(data), "the link was followed")
	fi, err := os.Lstat(filepath.Join(dir, "link"))
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "the link was replaced")
	assertOnly(t, dir, "link", "sub", "target")

	assert.NoError(t, outfile.Check(target))
	assert.NoError(t, outfile.Check(filepath.Join(dir, "absent")))
}

func TestWriteStaysInsideTheDirectory(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"../out.json", "/etc/out.json", ""} {
		assert.Error(t, outfile.Write(dir, name, outfile.Bytes(nil)), name)
	}
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "away")))
	assert.Error(t, outfile.Write(dir, "away/out.json", outfile.Bytes([]byte("x"))))
	assertOnly(t, outside)

	assert.ErrorIs(t, outfile.Write(dir, "media/a.png", outfile.Bytes([]byte("png"))), os.ErrNotExist, "a missing sub-folder is not made")
	require.NoError(t, os.Mkdir(filepath.Join(dir, "media"), 0o700))
	require.NoError(t, outfile.Write(dir, "media/a.png", outfile.Bytes([]byte("png"))))
	assertOnly(t, filepath.Join(dir, "media"), "a.png")
}

// assertOnly checks that dir holds the named entries and nothing else,
// no temporary file left behind.
func assertOnly(t *testing.T, dir string, names ...string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	assert.ElementsMatch(t, names, got)
}
