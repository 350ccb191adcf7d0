package atif

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/lookout-go/lookout/recorder"
)

// realFixtureFiles lists the ATIF documents among the shared real-world
// fixtures (../shared/fixtures/atif-real), skipping the test when the
// folder is absent. Files that are not ATIF (Harbor's *.traces.json and
// the RFC's native logs) and the validator's invalid unit-test cases are
// left out: those are the ones the validator refuses.
func realFixtureFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(realFixtureRoot(t), func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(path, ".json") || strings.HasSuffix(path, "expectations.json") {
			return nil
		}
		if problems, err := ValidateFile(path, nil); err == nil && problems == nil {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no valid ATIF documents among the real fixtures")
	}
	return files
}

// TestImportExportLosesNoField imports every fixture, exports it again
// with its media, and compares the two documents field by field: every
// value of the original must be in the export, at the same place, with
// the same value. Media paths may differ; the files they name must hold
// the same bytes. Only schema_version may change, to the version exports
// declare. Every loss is listed.
func TestImportExportLosesNoField(t *testing.T) {
	files := fixtureFiles(t)
	if _, err := findFixtures(); err == nil {
		files = append(files, realFixtureFiles(t)...)
	}
	lossy := 0
	for _, file := range files {
		name := strings.TrimPrefix(file, filepath.Dir(filepath.Dir(file))+string(filepath.Separator))
		t.Run(name, func(t *testing.T) {
			losses := roundTripLosses(t, file, true)
			if len(losses) > 0 {
				lossy++
				t.Errorf("%d fields lost or changed:\n%s", len(losses), strings.Join(losses[:min(len(losses), 20)], "\n"))
			}
		})
	}
	if lossy > 0 {
		t.Logf("%d of %d documents lost fields", lossy, len(files))
	}
}

// roundTripLosses imports file, exports it into a fresh folder and lists
// what the export lost. With viaJSONL the records go through their JSON
// Lines form on the way, as a file holds them; without, they stay as the
// import made them, as the CLI exports an ATIF file.
func roundTripLosses(t *testing.T, file string, viaJSONL bool) []string {
	t.Helper()
	original, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := Decode(original)
	if err != nil {
		t.Fatal(err)
	}
	imported, err := ToRecordsIn(filepath.Dir(file), tr)
	if err != nil {
		t.Fatal(err)
	}
	records := imported
	if viaJSONL {
		records = throughJSONL(t, imported)
	}
	roots := RootRuns(records)
	if len(roots) != 1 {
		t.Fatalf("import gave %d root runs, want 1", len(roots))
	}
	back, err := FromRecords(records, &Options{RunID: roots[0]})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	written, err := WriteFile(dir, "out.trajectory.json", back)
	if err != nil {
		t.Fatalf("export: %v", err)
	}
	if problems, err := ValidateFile(written, nil); err != nil || problems != nil {
		t.Fatalf("exported document is invalid: %v %v", err, problems)
	}
	exported, err := os.ReadFile(written)
	if err != nil {
		t.Fatal(err)
	}
	d := &differ{fromDir: filepath.Dir(file), toDir: dir}
	d.diff("", decodeGeneric(t, original), decodeGeneric(t, exported))
	return d.losses
}

// throughJSONL returns records encoded and decoded again, one by one.
func throughJSONL(t *testing.T, records []recorder.Record) []recorder.Record {
	t.Helper()
	out := make([]recorder.Record, len(records))
	for i, rec := range records {
		line, err := rec.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		if err := out[i].UnmarshalJSON(line); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

func decodeGeneric(t *testing.T, data []byte) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

// differ lists the values of one document that another does not hold.
// Media paths are compared by the bytes of the files they name, relative
// to each document's folder.
type differ struct {
	fromDir, toDir string
	losses         []string
}

func (d *differ) lose(path, format string, args ...any) {
	d.losses = append(d.losses, path+": "+fmt.Sprintf(format, args...))
}

func (d *differ) diff(path string, want, got any) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			d.lose(path, "want an object, got %s", short(got))
			return
		}
		keys := make([]string, 0, len(w))
		for k := range w {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := join(path, k)
			if k == "schema_version" {
				continue
			}
			gv, has := g[k]
			if !has {
				d.lose(p, "missing (was %s)", short(w[k]))
				continue
			}
			if k == "path" && strings.HasSuffix(path, "source") {
				d.media(p, w[k], gv)
				continue
			}
			d.diff(p, w[k], gv)
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			d.lose(path, "want a list, got %s", short(got))
			return
		}
		if len(g) != len(w) {
			d.lose(path, "%d items, want %d", len(g), len(w))
		}
		for i := range min(len(w), len(g)) {
			d.diff(index(path, i), w[i], g[i])
		}
	case json.Number:
		// -1.0 and -1 are one number.
		g, ok := got.(json.Number)
		wf, werr := w.Float64()
		gf, gerr := g.Float64()
		if !ok || werr != nil || gerr != nil || wf != gf {
			d.lose(path, "%s, want %s", short(got), short(want))
		}
	default:
		if !reflect.DeepEqual(want, got) {
			d.lose(path, "%s, want %s", short(got), short(want))
		}
	}
}

// media compares two media paths by the files they name.
func (d *differ) media(path string, want, got any) {
	wp, _ := want.(string)
	gp, _ := got.(string)
	if strings.Contains(wp, "://") {
		if wp != gp {
			d.lose(path, "%q, want %q", gp, wp)
		}
		return
	}
	read := func(dir, p string) []byte {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		return b
	}
	w, g := read(d.fromDir, wp), read(d.toDir, gp)
	if w == nil || !bytes.Equal(w, g) {
		d.lose(path, "media %q does not hold the bytes of %q", gp, wp)
	}
}

func short(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		b = append(slices.Clip(b[:77]), "..."...)
	}
	return string(b)
}

func TestTheRoundTripDiffListsEveryLoss(t *testing.T) {
	var want, got any
	_ = json.Unmarshal([]byte(`{"a":1,"b":{"c":[1,2]},"d":"x","e":1.0}`), &want)
	_ = json.Unmarshal([]byte(`{"a":1,"b":{"c":[1]},"d":"y","e":1,"extra":true}`), &got)
	d := &differ{}
	d.diff("", toNumbers(want), toNumbers(got))
	wantLosses := []string{"b.c: 1 items, want 2", `d: "y", want "x"`}
	if !reflect.DeepEqual(d.losses, wantLosses) {
		t.Errorf("losses = %q, want %q", d.losses, wantLosses)
	}
}

// toNumbers re-decodes v with numbers as json.Number, as documents are
// compared.
func toNumbers(v any) any {
	data, _ := json.Marshal(v)
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out any
	_ = dec.Decode(&out)
	return out
}
