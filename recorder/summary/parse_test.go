package summary

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseAnswerToleratesWhatModelsWrite(t *testing.T) {
	want := answer{summary: "Did it.", rationale: "ls lists.", findings: []string{"a", "b"}, confidence: High}
	cases := []struct {
		name string
		text string
		want answer
	}{
		{"plain JSON", `{"summary":"Did it.","tools_rationale":"ls lists.","key_findings":["a","b"],"confidence":"high"}`, want},
		{"a code fence", "```json\n{\"summary\":\"Did it.\",\"tools_rationale\":\"ls lists.\",\"key_findings\":[\"a\",\"b\"],\"confidence\":\"high\"}\n```", want},
		{"text around the object", "Sure! Here it is:\n{\"summary\":\"Did it.\",\"tools_rationale\":\"ls lists.\",\"key_findings\":[\"a\",\"b\"],\"confidence\":\"high\"}\nHope this helps {really}.", want},
		{"keys in other spellings", `{"Summary":"Did it.","Tool Rationale":"ls lists.","Key-Findings":["a","b"],"confidence_level":"High"}`, want},
		{"findings as a string of lines", `{"summary":"Did it.","rationale":"ls lists.","findings":"- a\n2) b\n\n","confidence":"HIGH confidence"}`, want},
		{"a wrapper object", `{"result":{"summary":"Did it.","tools_rationale":"ls lists.","key_findings":["a","b"],"confidence":"high"}}`, want},
		{"an earlier object without a summary", `{"note":"x"} {"summary":"Did it.","tools_rationale":"ls lists.","key_findings":["a","b"],"confidence":"high"}`, want},
		{"a rationale as a list and findings with numbers", `{"summary":" Did it. ","tools_rationale":["ls lists."],"key_findings":["a",2,null,""],"confidence":"moderate"}`,
			answer{summary: "Did it.", rationale: "ls lists.", findings: []string{"a", "2"}, confidence: Medium}},
		{"only a summary", `{"summary":"Did it."}`, answer{summary: "Did it."}},
		{"an unknown confidence", `{"summary":"Did it.","confidence":"sure"}`, answer{summary: "Did it."}},
		{"a low confidence", `{"summary":"Did it.","confidence":"Low."}`, answer{summary: "Did it.", confidence: Low}},
	}
	for _, tc := range cases {
		t.Run("reads "+tc.name, func(t *testing.T) {
			got, err := parseAnswer(tc.text)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestParseAnswerRejectsAnswersWithoutASummary(t *testing.T) {
	for name, text := range map[string]string{
		"no JSON":           "I cannot help with that.",
		"broken JSON":       `{"summary": "Did it.`,
		"an empty summary":  `{"summary":"  ","confidence":"high"}`,
		"no summary key":    `{"tools_rationale":"x"}`,
		"a list, no object": `["summary"]`,
		"an empty answer":   ``,
		"a null summary":    `{"summary":null}`,
	} {
		t.Run("rejects "+name, func(t *testing.T) {
			_, err := parseAnswer(text)
			assert.True(t, errors.Is(err, ErrResponse), "got %v", err)
		})
	}
}

func TestParseAnswerBoundsItsWork(t *testing.T) {
	text := strings.Repeat("{", 10_000) + `{"summary":"late"}`
	_, err := parseAnswer(text)
	assert.ErrorIs(t, err, ErrResponse, "only the first braces are tried")
}

func FuzzParseAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"summary":"s","key_findings":"- a\n- b","confidence":"high"}`,
		"```json\n{\"summary\":\"s\"}\n```",
		`{"summary":["x"],"findings":[1,{"a":2}]}`,
		`{{{`,
		``,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		a, err := parseAnswer(text)
		if err != nil {
			if !errors.Is(err, ErrResponse) {
				t.Fatalf("error %v does not match ErrResponse", err)
			}
			return
		}
		if strings.TrimSpace(a.summary) == "" {
			t.Fatal("accepted an answer without a summary")
		}
		switch a.confidence {
		case "", Low, Medium, High:
		default:
			t.Fatalf("confidence %q is not a level", a.confidence)
		}
	})
}

func TestFitKeepsTheStartAndTheEnd(t *testing.T) {
	entries := make([]string, 100)
	for i := range entries {
		entries[i] = strings.Repeat("e", 19) // 20 bytes with the newline
	}
	entries[0], entries[99] = "first..............", "last..............."

	t.Run("everything when it fits", func(t *testing.T) {
		assert.Equal(t, entries, fit(entries, 2000))
	})
	t.Run("head and tail with a marker when it does not", func(t *testing.T) {
		got := fit(entries, 464)
		size := 0
		for _, e := range got {
			size += len(e) + 1
		}
		assert.LessOrEqual(t, size, 464)
		assert.Equal(t, "first..............", got[0])
		assert.Equal(t, "last...............", got[len(got)-1])
		assert.Equal(t, "[… 80 entries left out …]", got[10])
	})
	t.Run("only the marker when nothing fits", func(t *testing.T) {
		assert.Equal(t, []string{"[… 100 entries left out …]"}, fit(entries, 0))
	})
}
