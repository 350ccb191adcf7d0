package simulate

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cloudwego/eino/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseScores(t *testing.T) {
	known := map[string]bool{"a": true, "b": true}
	cases := []struct {
		name string
		in   string
		want []Candidate
	}{
		{"plain object", `{"scores":[{"stepId":"a","score":0.8,"reasons":["fits"]}]}`, []Candidate{{StepID: "a", Score: 0.8, Reasons: []string{"fits"}}}},
		{"code fence and prose", "Here you go:\n```json\n{\"scores\":[{\"stepId\":\"b\",\"score\":0.7}]}\n```\nHope it helps", []Candidate{{StepID: "b", Score: 0.7}}},
		{"bare array", `[{"id":"a","score":1},{"step":"b","confidence":0.2}]`, []Candidate{{StepID: "a", Score: 1}, {StepID: "b", Score: 0.2}}},
		{"object keyed by step id", `{"b":0.4,"a":0.9}`, []Candidate{{StepID: "a", Score: 0.9}, {StepID: "b", Score: 0.4}}},
		{"scores as strings and percentages", `{"rankings":[{"step_id":"a","score":"0.6"},{"stepId":"b","score":"75%"}]}`, []Candidate{{StepID: "a", Score: 0.6}, {StepID: "b", Score: 0.75}}},
		{"single reason string", `{"stepId":"a","score":0.9,"reason":"clear"}`, []Candidate{{StepID: "a", Score: 0.9, Reasons: []string{"clear"}}}},
		{"nested under another key", `{"result":{"scores":[{"stepId":"a","score":0.9}]}}`, []Candidate{{StepID: "a", Score: 0.9}}},
		{"unknown steps and bad scores are dropped", `[{"stepId":"zzz","score":0.9},{"stepId":"a","score":-1},{"stepId":"b","score":0.3},{"stepId":"a","score":"high"}]`, []Candidate{{StepID: "b", Score: 0.3}}},
		{"duplicates keep the highest", `[{"stepId":"a","score":0.3},{"stepId":"a","score":0.6}]`, []Candidate{{StepID: "a", Score: 0.6}}},
		{"a broken first object is skipped", `{"scores": [ oops } then {"scores":[{"stepId":"a","score":0.55}]}`, []Candidate{{StepID: "a", Score: 0.55}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := parseScores(c.in, known)
			require.NoError(t, err)
			assert.Equal(t, c.want, got)
		})
	}

	for _, bad := range []string{"", "no json here", "{}", `{"scores":[]}`, `[1,2,3]`, `{"scores":[{"stepId":"x","score":1}]}`, `{"a": 500}`, strings.Repeat("{", 1000)} {
		t.Run("no ranking from "+truncate(bad, 20), func(t *testing.T) {
			got, err := parseScores(bad, known)
			assert.Nil(t, got)
			assert.ErrorIs(t, err, ErrBadRanking)
		})
	}
}

func FuzzParseScores(f *testing.F) {
	for _, s := range []string{`{"scores":[{"stepId":"a","score":0.8}]}`, `[{"id":"b","score":"70%"}]`, `{"a":1}`, "```json\n{", `{"stepId":"a","score":1e400}`} {
		f.Add(s)
	}
	known := map[string]bool{"a": true, "b": true}
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := parseScores(s, known)
		if err != nil {
			if cs != nil || !errors.Is(err, ErrBadRanking) {
				t.Fatalf("error %v with candidates %v", err, cs)
			}
			return
		}
		for _, c := range cs {
			if !known[c.StepID] || c.Score < 0 || c.Score > 1 {
				t.Fatalf("bad candidate %+v", c)
			}
		}
	})
}

func TestLLMRanker(t *testing.T) {
	m := &fakeModel{fn: func(int, []*schema.Message) (*schema.Message, error) {
		return schema.AssistantMessage(`{"scores":[{"stepId":"hotel","score":0.9}]}`, nil), nil
	}}
	in := RankInput{
		Goal:  "plan a trip",
		Steps: []Step{{ID: "hotel", Instruction: "ask for hotels"}, {ID: "car", Instruction: "ask for a car"}},
		Traces: []StepTrace{{
			User: schema.UserMessage("find flights"),
			Agent: []*schema.Message{
				schema.AssistantMessage("", []schema.ToolCall{{ID: "1", Function: schema.FunctionCall{Name: "search_flights", Arguments: `{"to":"LIS"}`}}}),
				schema.ToolMessage("TP123 at 9:00", "1", schema.WithToolName("search_flights")),
				schema.AssistantMessage("Found TP123.", nil),
			},
		}},
	}
	got, err := NewRanker(m).Rank(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, []Candidate{{StepID: "hotel", Score: 0.9}}, got)
	prompt := m.inputs()[0][1].Content
	for _, want := range []string{"plan a trip", "User: find flights", "Assistant called tool search_flights with {\"to\":\"LIS\"}", "Tool result from search_flights: TP123 at 9:00", "- hotel: ask for hotels", "- car: ask for a car"} {
		assert.Contains(t, prompt, want)
	}

	t.Run("model errors pass through", func(t *testing.T) {
		m := &fakeModel{fn: func(int, []*schema.Message) (*schema.Message, error) { return nil, errors.New("down") }}
		_, err := NewRanker(m).Rank(context.Background(), in)
		assert.EqualError(t, err, "down")
	})
	t.Run("no steps, no call", func(t *testing.T) {
		m := &fakeModel{fn: func(int, []*schema.Message) (*schema.Message, error) { panic("called") }}
		got, err := NewRanker(m).Rank(context.Background(), RankInput{})
		assert.NoError(t, err)
		assert.Nil(t, got)
	})
}

func TestTruncateKeepsRunesWhole(t *testing.T) {
	s := truncate(strings.Repeat("é", 10), 5)
	assert.Equal(t, "éé …[truncated]", s)
	assert.Equal(t, "short", truncate("short", 10))
}
