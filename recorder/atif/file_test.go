package atif

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

func smallTrajectory() *Trajectory {
	return &Trajectory{
		SchemaVersion: Version,
		SessionID:     "run-1",
		Agent:         Agent{Name: "a", Version: "1"},
		Steps:         []Step{{StepID: 1, Source: SourceUser, Message: Text("hi")}},
	}
}

func TestWriteFileWritesAValidPrivateFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	path, err := WriteFile(dir, "run-1.trajectory.json", smallTrajectory())
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "run-1.trajectory.json") {
		t.Errorf("path = %q", path)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && info.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", info.Mode().Perm())
	}
	problems, err := ValidateFile(path, nil)
	if err != nil || problems != nil {
		t.Errorf("written file: %v %v", problems, err)
	}
	back, err := ReadFile(path)
	if err != nil || back.SessionID != "run-1" {
		t.Errorf("ReadFile = %+v, %v", back, err)
	}
}

func TestWriteFileTightensAnExistingFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("file modes are not POSIX on Windows")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "t.json")
	if err := os.WriteFile(path, []byte("old old old old old old old old old old old old old old old old old old old"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := WriteFile(dir, "t.json", smallTrajectory()); err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(path)
	if info.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", info.Mode().Perm())
	}
	if problems, _ := ValidateFile(path, nil); problems != nil {
		t.Errorf("old content not truncated: %v", problems)
	}
}

func TestWriteFileRefusesPathsThatEscape(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "link")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	if err := os.Symlink(filepath.Join(outside, "new.json"), filepath.Join(dir, "dangling.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../escape.json", filepath.Join(dir, "relative.json")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{
		"", "..", "../x.json", "a/../../x.json", filepath.Join(outside, "abs.json"),
		"link/x.json", "dangling.json", "relative.json",
	} {
		_, err := WriteFile(dir, name, smallTrajectory())
		var pe *PathError
		if !errors.As(err, &pe) || !errors.Is(err, ErrUnsafePath) {
			t.Errorf("WriteFile(%q) error = %v, want a PathError", name, err)
		}
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 0 {
		t.Errorf("something was written outside: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "escape.json")); err == nil {
		t.Error("escape.json was written next to the directory")
	}
}

func TestWriteFileAllowsSubdirectoriesAndLinksThatStayInside(t *testing.T) {
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "runs"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("runs", filepath.Join(dir, "latest")); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
	for _, name := range []string{"runs/a.json", "latest/b.json", "runs/../c.json"} {
		if _, err := WriteFile(dir, name, smallTrajectory()); err != nil {
			t.Errorf("WriteFile(%q) = %v", name, err)
		}
	}
}

func TestWriteFileRefusesAnInvalidTrajectory(t *testing.T) {
	dir := t.TempDir()
	bad := smallTrajectory()
	bad.Steps = nil
	_, err := WriteFile(dir, "bad.json", bad)
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("err = %v, want a ValidationError", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.json")); !errors.Is(err, os.ErrNotExist) {
		t.Error("an invalid trajectory was written")
	}
}
