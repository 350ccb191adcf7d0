package observer_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/observer"
)

func TestNormalizeArguments(t *testing.T) {
	var n observer.Normalizer
	tests := []struct{ name, in, want string }{
		{"keys are sorted and whitespace dropped", `{ "b": 1, "a": [1, 2] }`, `{"a":[1,2],"b":1}`},
		{"nested objects are sorted too", `{"z":{"y":1,"x":2},"a":0}`, `{"a":0,"z":{"x":2,"y":1}}`},
		{"volatile keys are dropped at any depth", `{"q":"x","request_id":"r1","meta":{"traceId":"t","Idempotency-Key":"k"}}`, `{"meta":{},"q":"x"}`},
		{"uuids", `{"id":"3fa85f64-5717-4562-b3fc-2c963f66afa6"}`, `{"id":"<uuid>"}`},
		{"dates and times", `{"since":"2026-01-15T14:03:07.123+01:00","day":"2026-01-15","at":"14:03:07"}`, `{"at":"<time>","day":"<time>","since":"<time>"}`},
		{"unix times", `{"after":"1767225600","ms":"1767225600123"}`, `{"after":"<epoch>","ms":"<epoch>"}`},
		{"temporary directories", `{"out":"/tmp/tmpa8x_k2l3/result.json","in":"/var/folders/xy/abc123/T/go-build99/x"}`, `{"in":"<tmp>/x","out":"<tmp>/result.json"}`},
		{"a plain temporary file keeps its name", `{"out":"/tmp/report.txt"}`, `{"out":"<tmp>/report.txt"}`},
		{"temporary roots in any case, other roots kept", `{"a":"/TMP/x1/a","b":"/Private/Tmp/q","c":"/home/tmp1/x","d":"/usr/tmp/x"}`, `{"a":"<tmp>/a","b":"<tmp>/q","c":"/home/tmp1/x","d":"/usr/tmp/x"}`},
		{"a uuid's and a long id's first byte, and one byte short of them", `{"u":"3fa85f64-5717-4562-b3fc-2c963f66afa","i":"a8Fj3kLm9QpZx2Y1","j":"a8Fj3kLm9QpZx21"}`, `{"i":"<id>","j":"a8Fj3kLm9QpZx21","u":"3fa85f64-5717-4562-b3fc-2c963f66afa"}`},
		{"a Windows temporary directory", `{"p":"C:\\Users\\me\\AppData\\Local\\Temp\\tmp4kd2\\x.txt"}`, `{"p":"<tmp>\\x.txt"}`},
		{"long ids", `{"cursor":"a8Fj3kLm9QpZx2Yw71","sha":"9fceb02d0ae598e95dc970b74767f19372d61af8"}`, `{"cursor":"<id>","sha":"<id>"}`},
		{"ids after a prefix", `{"job":"job_8f7a6b5c4d3e2f1a9b8c"}`, `{"job":"job_<id>"}`},
		{"numbers are kept", `{"page":2,"limit":50}`, `{"limit":50,"page":2}`},
		{"short words with digits are kept", `{"v":"utf8 x86_64 v1.2.3 page2"}`, `{"v":"utf8 x86_64 v1.2.3 page2"}`},
		{"text is compared as text", "ls -la /tmp/tmp9x/", "~ls -la <tmp>/"},
		{"truncated JSON is compared as text", `{"path":"a.go","content":"pack`, `~{"path":"a.go","content":"pack`},
		{"a JSON scalar is compared as text", `"go.mod"`, `~"go.mod"`},
		{"empty arguments", "  ", "~"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, n.Normalize(tt.in))
		})
	}
}

func TestNormalizerIsExtensible(t *testing.T) {
	t.Run("more volatile keys", func(t *testing.T) {
		n := &observer.Normalizer{VolatileKeys: append(observer.DefaultVolatileKeys(), "session")}
		assert.Equal(t, `{"q":"x"}`, n.Normalize(`{"q":"x","Session":"s-1","nonce":"n"}`))
	})
	t.Run("no volatile keys", func(t *testing.T) {
		n := &observer.Normalizer{VolatileKeys: []string{}}
		assert.Equal(t, `{"nonce":"n"}`, n.Normalize(`{"nonce":"n"}`))
	})
	t.Run("a pattern rule", func(t *testing.T) {
		rule, err := observer.PatternRule("ticket", `[A-Z]+-[0-9]+`)
		require.NoError(t, err)
		n := &observer.Normalizer{Rules: append(observer.DefaultRules(), rule)}
		assert.Equal(t, `{"t":"see <ticket> now"}`, n.Normalize(`{"t":"see PAY-1234 now"}`))
	})
	t.Run("a hand-written rule that only matches where a word starts", func(t *testing.T) {
		n := &observer.Normalizer{Rules: []observer.Rule{{Name: "x", Starts: "x", Match: func(s string) int { return len("x1") * btoi(strings.HasPrefix(s, "x1")) }}}}
		assert.Equal(t, "<x> ax1 <x>.", n.NormalizeText("x1 ax1 x1."))
		assert.Equal(t, "x12", n.NormalizeText("x12"), "a match ending inside a word does not count")
	})
	t.Run("no rules", func(t *testing.T) {
		n := &observer.Normalizer{Rules: []observer.Rule{}}
		assert.Equal(t, `{"id":"3fa85f64-5717-4562-b3fc-2c963f66afa6"}`, n.Normalize(`{"id":"3fa85f64-5717-4562-b3fc-2c963f66afa6"}`))
	})
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestNormalizeText(t *testing.T) {
	var n observer.Normalizer
	assert.Equal(t, "fetched at <time>, trace <uuid>, 42 rows",
		n.NormalizeText("fetched at 2026-01-15 14:03:07Z, trace 3fa85f64-5717-4562-b3fc-2c963f66afa6, 42 rows"))
	assert.Equal(t, "déjà 2026-01-15x", n.NormalizeText("déjà 2026-01-15x"), "a date running into a word is kept")
}

func FuzzNormalize(f *testing.F) {
	for _, seed := range []string{
		`{"a":1}`, `{"b":[1,{"c":"2026-01-15"}],"request_id":"x"}`, `[]`, `{`, `"x"`, "ls /tmp/x1/y",
		`{"a":"\"q\\"}`, `[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]`,
		"3fa85f64-5717-4562-b3fc-2c963f66afa6", `C:\x:\Temp\`, "/var/folders/T/",
	} {
		f.Add(seed)
	}
	var n observer.Normalizer
	f.Fuzz(func(t *testing.T, in string) {
		out := n.Normalize(in)
		if out == "" {
			t.Fatal("the canonical form is never empty")
		}
		if out[0] != '~' {
			if n.Normalize(out) != out {
				t.Fatalf("canonical JSON is not stable: %q -> %q -> %q", in, out, n.Normalize(out))
			}
			if json.Valid([]byte(in)) && !json.Valid([]byte(out)) {
				t.Fatalf("valid JSON %q became invalid %q", in, out)
			}
		}
		_ = n.NormalizeText(in)
	})
}

// FuzzDetectors feeds arbitrary calls, repeated so that the detectors
// fire and render, and requires that no detector fails or panics.
func FuzzDetectors(f *testing.F) {
	f.Add("read_file", `{"path":"a/b.go"}`, "x", "", true, "fix `a/b.go` at https://x.io")
	f.Add("write_file", `{"path":"/tmp/1x/y","content":"z"}`, "", "open /tmp/1x/y: denied 0x1f", false, "")
	f.Add("sh", `{"command":"cat ~/a.txt | grep 10.0.0.1:80"}`, "\x00\xff", "E: \u00e9 2026-01-15", false, "C:\\a\\b.c")
	f.Add("", "", "", "", false, "")
	f.Fuzz(func(t *testing.T, tool, args, result, errMsg string, success bool, prompt string) {
		h := newHarness(t, detectors()...).task(observer.Task{Prompt: prompt, Scope: strings.Fields(prompt)})
		rec := observer.ToolCallRecord{ToolName: tool, Arguments: args, Result: result, ErrorMessage: errMsg, Success: success}
		other := rec
		other.ToolName += "_other"
		h.run(rec, rec, other, rec, other, rec, other, rec, rec, rec)
		for _, c := range h.produced {
			if c != nil && c.Render() == "" {
				t.Fatal("an assessment rendered empty")
			}
		}
	})
}

// The rules read the first 1,024 bytes of a text and keep the rest as
// it is, so a long output costs no more than its start; text full of
// macOS temporary-directory prefixes (a build log, a file listing) is no
// exception. Quadratic, 4 MB of them takes minutes.
func TestNormalizeReadsTheStartOfALongText(t *testing.T) {
	args := `{"script":"` + strings.Repeat("x ", 600) + `1767225600","more":"1767225600"}`
	assert.Equal(t, `{"more":"1767225600","script":"`+strings.Repeat("x ", 600)+`1767225600"}`, (&observer.Normalizer{}).Normalize(args),
		"the rules read the first 1,024 bytes of an argument's strings together")

	text := strings.Repeat("/var/folders/ab/C/x ", 200_000)
	done := make(chan string, 1)
	go func() {
		var n observer.Normalizer
		done <- n.NormalizeText(text)
	}()
	select {
	case got := <-done:
		// 51 prefixes of 20 bytes fit in the first 1,024 bytes.
		assert.Equal(t, strings.Repeat("<tmp>/ab/C/x ", 51)+text[51*20:], got)
	case <-time.After(10 * time.Second):
		t.Fatal("normalizing 4 MB took more than 10 seconds")
	}
}

// Arguments holding a large object (a map of records, a configuration)
// are canonicalized on every call: sorting its keys must not cost the
// square of their number. Quadratic, 100,000 keys in reverse take half a
// minute.
func TestNormalizeTimeGrowsGentlyWithManyKeys(t *testing.T) {
	const n = 100_000
	var b strings.Builder
	b.WriteByte('{')
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"k%06d":%d`, n-i, i)
	}
	b.WriteByte('}')
	args := b.String()
	done := make(chan string, 1)
	go func() {
		var norm observer.Normalizer
		done <- norm.Normalize(args)
	}()
	select {
	case got := <-done:
		assert.True(t, strings.HasPrefix(got, `{"k000001":99999,"k000002":99998,`), got[:40])
		assert.True(t, strings.HasSuffix(got, `,"k100000":0}`))
	case <-time.After(10 * time.Second):
		t.Fatal("normalizing 100,000 keys took more than 10 seconds")
	}
}
