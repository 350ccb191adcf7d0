package recorder_test

import (
	"os"
	"strings"
	"testing"

	"github.com/lookout-go/lookout/internal/secretcorpus"
	"github.com/lookout-go/lookout/recorder"
)

// leaks returns what of the secrets of s survives in out: a whole secret
// or a random piece of one.
func leaks(s secretcorpus.Secret, out string) []string {
	var left []string
	for _, v := range append(append([]string(nil), s.Secrets...), s.Pieces...) {
		if strings.Contains(out, v) {
			left = append(left, v)
		}
	}
	return left
}

// TestSecretsOfTheProviderCorpusAllGo measures the built-in redactor on
// secrets in the formats providers document, in env files, JSON, YAML,
// curl commands, headers, code and logs: none survives. The corpus was
// written from the providers' formats rather than from the redactor's
// rules. LOOKOUT_SECRETS_CORPUS names a further file of the same form to
// measure, whose leaks are reported rather than failed.
func TestSecretsOfTheProviderCorpusAllGo(t *testing.T) {
	corpus := secretcorpus.Secrets()
	providers := map[string]bool{}
	for _, s := range corpus {
		providers[s.Provider] = true
	}
	if len(corpus) < 150 || len(providers) < 40 {
		t.Fatalf("the corpus has %d secrets of %d providers, want 150 of 40", len(corpus), len(providers))
	}
	r := recorder.Secrets()
	leaked := 0
	for _, s := range corpus {
		out := r.Redact(s.Text)
		if l := leaks(s, out); len(l) > 0 {
			leaked++
			t.Errorf("%s %s leaks %q:\n%s", s.Provider, s.Shape, l, out)
		}
	}
	t.Logf("%d secrets of %d providers, %d leaked", len(corpus), len(providers), leaked)

	path := os.Getenv("LOOKOUT_SECRETS_CORPUS")
	if path == "" {
		return
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	more, err := secretcorpus.ParseSecrets(string(src), secretcorpus.Seed)
	if err != nil {
		t.Fatal(err)
	}
	leaked = 0
	for _, s := range more {
		if out := r.Redact(s.Text); len(leaks(s, out)) > 0 {
			leaked++
			t.Logf("%s: %s %s leaks: %s", path, s.Provider, s.Shape, out)
		}
	}
	t.Logf("%s: %d secrets, %d leaked", path, len(more), leaked)
}

// TestSecretsOfTheProviderCorpusSpareItsNearMisses: of the texts that
// only look like secrets (commit and content hashes, UUIDs, lock files,
// base64 images, ids, URLs and versions, words like task-manager), at
// most two change.
func TestSecretsOfTheProviderCorpusSpareItsNearMisses(t *testing.T) {
	misses := secretcorpus.NearMisses()
	if len(misses) < 100 {
		t.Fatalf("the corpus has %d near-misses, want 100", len(misses))
	}
	r := recorder.Secrets()
	changed := 0
	for _, in := range misses {
		if out := r.Redact(in); out != in {
			changed++
			t.Logf("changed: %q\n     to: %q", in, out)
		}
	}
	t.Logf("%d near-misses, %d changed", len(misses), changed)
	if changed > 2 {
		t.Errorf("%d near-misses changed, want at most 2", changed)
	}
}

// The pre-scans agree with the full detector on the corpus.
func TestSecretsPreScanAgreesWithTheFullDetectorOnTheProviderCorpus(t *testing.T) {
	var texts []string
	for _, s := range secretcorpus.Secrets() {
		texts = append(texts, s.Text)
	}
	for _, in := range append(texts, secretcorpus.NearMisses()...) {
		if got, want := recorder.Secrets().Redact(in), recorder.RedactFromStart(in); got != want {
			t.Errorf("redacted %q as %q, the full detector gives %q", in, got, want)
		}
	}
}
