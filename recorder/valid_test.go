package recorder_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/lookout-go/lookout/recorder"
)

// validityCases are JSON texts on either side of json.Valid's line.
var validityCases = []string{
	``, ` `, `0`, `-0`, `-`, `01`, `-01`, `1.`, `1.5`, `.5`, `1e5`, `1E+5`, `1e-05`, `1e`, `1e+`, `1.5e3x`,
	`-a`, `+1`, `0x10`, `1 2`, ` 12 `, "\t\r\n1\n",
	`true`, `tru`, `truex`, `false`, `fals`, `null`, `nul`, `nullnull`, `True`,
	`""`, `"`, `"abc`, `"a\"b"`, `"\\"`, `"\/\b\f\n\r\t"`, `"\a"`, `"\u00e9"`, `"\u00G9"`, `"\u00e"`, `"\`,
	"\"\x1f\"", "\"\x7f\"", "\"\xff\xfe\"", "\"é\"",
	`[]`, `[`, `]`, `[1,]`, `[,1]`, `[1 2]`, `[1,2]`, ` [ 1 , [ ] , { } ] `, `[}`, `{]`,
	`{}`, `{`, `{"a"}`, `{"a":}`, `{"a":1}`, `{"a":1,}`, `{"a" : 1 , "b" : [true] }`, `{1:2}`, `{"a":1 "b":2}`,
	`{"a":{"b":{"c":[[[]]]}}}`, `{"a":[{"b":"c"},{"d":null}]}`, `[1]]`, `{}}`, `[]{}`,
	`{"observer":"Stall","severity":"info","assessment_call_index":4,"counts":{"shown":1,"changed_course":0}}`,
}

func TestValidJSONAgreesWithEncodingJSON(t *testing.T) {
	deep := func(n int, open, close string) string { return strings.Repeat(open, n) + strings.Repeat(close, n) }
	cases := append(validityCases,
		deep(64, "[", "]"), deep(65, "[", "]"), deep(200, `{"a":`, "}"), deep(10000, "[", "]"), deep(10001, "[", "]"),
		deep(70, "[", "]")+"]", strings.Repeat("[", 70)+"1"+strings.Repeat("]", 69))
	for _, in := range cases {
		if got, want := recorder.ValidJSON([]byte(in)), json.Valid([]byte(in)); got != want {
			t.Errorf("valid %v, json.Valid says %v, for %.80q", got, want, in)
		}
	}
}

func FuzzValidJSON(f *testing.F) {
	for _, in := range validityCases {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if got, want := recorder.ValidJSON(in), json.Valid(in); got != want {
			t.Fatalf("valid %v, json.Valid says %v, for %q", got, want, in)
		}
	})
}
