package atif

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lookout-go/lookout/recorder"
)

// withImage is smallTrajectory with an inline image to write next to it.
func withImage() *Trajectory {
	t := smallTrajectory()
	t.Steps[0].Message = Parts(ContentPart{Type: PartImage, Source: &MediaSource{MediaType: "image/png", Path: "media/abc.png"}})
	t.media = map[string][]byte{"media/abc.png": {1, 2, 3}}
	return t
}

func TestPrepareFileChecksWithoutWritingAndUndoRemovesWhatWriteMade(t *testing.T) {
	dir := t.TempDir()
	existing := filepath.Join(dir, "kept.trajectory.json")
	if err := os.WriteFile(existing, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	made, err := PrepareFile(dir, "new.trajectory.json", withImage())
	if err != nil {
		t.Fatal(err)
	}
	replaced, err := PrepareFile(dir, "kept.trajectory.json", smallTrajectory())
	if err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("PrepareFile wrote something: %v", entries)
	}
	for _, d := range []*PreparedFile{made, replaced} {
		if _, err := d.Write(); err != nil {
			t.Fatal(err)
		}
	}
	if problems, err := ValidateFile(made.Path(), nil); err != nil || problems != nil {
		t.Fatalf("written document: %v %v", err, problems)
	}
	if err := errors.Join(made.Undo(), replaced.Undo()); err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"new.trajectory.json", "media/abc.png", "media"} {
		if _, err := os.Stat(filepath.Join(dir, gone)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s is still there after Undo", gone)
		}
	}
	if _, err := os.Stat(existing); err != nil {
		t.Errorf("Undo removed a file the write only replaced: %v", err)
	}
}

func TestPrepareFileRefusesMediaThatIsNeitherWrittenNorThere(t *testing.T) {
	tr := withImage()
	tr.media = nil
	_, err := PrepareFile(t.TempDir(), "x.json", tr)
	var invalid *ValidationError
	if !errors.As(err, &invalid) || invalid.Problems[0].Rule != RuleMediaMissing {
		t.Errorf("err = %v, want the missing image", err)
	}
}

func TestCheckPathRefusesALinkOutOfTheFolder(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	dir, outside := t.TempDir(), t.TempDir()
	if err := os.Symlink(filepath.Join(outside, "x"), filepath.Join(dir, "run.messages.jsonl")); err != nil {
		t.Fatal(err)
	}
	if err := CheckPath(dir, "run.messages.jsonl"); !errors.Is(err, ErrUnsafePath) {
		t.Errorf("CheckPath = %v, want ErrUnsafePath", err)
	}
	if err := CheckPath(dir, "../x"); !errors.Is(err, ErrUnsafePath) {
		t.Errorf("CheckPath(../x) = %v, want ErrUnsafePath", err)
	}
	if err := CheckPath(filepath.Join(dir, "not-yet"), "fine.json"); err != nil {
		t.Errorf("CheckPath in a folder still to make = %v", err)
	}
}

func TestTheRedactorReachesWhatAnImportKept(t *testing.T) {
	records := importValid(t, `{"schema_version":"ATIF-v1.8","session_id":"s","notes":"key sk-abcdefghijklmnopqrstuvwx",
		"agent":{"name":"a","version":"1","extra":{"token":"sk-abcdefghijklmnopqrstuvwx"}},
		"steps":[{"step_id":1,"source":"user","message":"hi","extra":{"note":"sk-abcdefghijklmnopqrstuvwx"}}]}`)
	redact := recorder.RedactFunc(func(s string) string { return strings.ReplaceAll(s, "sk-abcdefghijklmnopqrstuvwx", "[x]") })
	back, err := FromRecords(records, &Options{Redactor: redact})
	if err != nil {
		t.Fatal(err)
	}
	data, err := Encode(back)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "sk-") || strings.Count(string(data), "[x]") != 3 {
		t.Errorf("export holds the key or lost a field:\n%s", data)
	}
}
