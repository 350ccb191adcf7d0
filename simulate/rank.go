package simulate

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"

	"github.com/lookout-go/lookout/internal/msgtext"
)

// RankThreshold is the confidence a ranked step must exceed to be selected.
// Scores at or below it are recorded but dropped.
const RankThreshold = 0.5

// RankInput is what a ranker sees: the goal and persona, the eligible steps
// in graph order, and the most recent turns (tool messages included).
//
// The runner builds a fresh RankInput per call, safe for concurrent reads;
// the Steps and Traces it points to are shared and must be treated as
// read-only.
type RankInput struct {
	Goal    string
	Persona Persona
	Steps   []Step
	Traces  []StepTrace
}

// Ranker scores eligible steps in [0, 1] for how well each fits as the
// user's next move. It may omit steps. An error fails the run with
// SideRanker, or with SideInfrastructure when it is transient and remains
// after the Runner's retries; a scenario whose OnRankerFailure is
// RankerDegrade goes on without a step instead.
//
// The runner applies the rules the default ranker applies to a model's
// answer: it drops every candidate whose score is not a number in [0, 1]
// (NaN, infinities, negative or larger scores) or that names a step not in
// RankInput.Steps, and keeps one candidate per step, with its best score.
// A dropped candidate is neither recorded nor selected. When candidates were
// given but none is usable, the ranking failed with an error wrapping
// ErrBadRanking. A panic counts as an error.
//
// Implementations must be safe for concurrent use when the Runner that
// holds them is shared.
type Ranker interface {
	Rank(ctx context.Context, in RankInput) ([]Candidate, error)
}

// RankerFunc adapts a function to Ranker.
//
// It is as safe for concurrent use as the function is.
type RankerFunc func(ctx context.Context, in RankInput) ([]Candidate, error)

// Rank calls f.
func (f RankerFunc) Rank(ctx context.Context, in RankInput) ([]Candidate, error) { return f(ctx, in) }

// NewRanker returns the default ranker: it asks m for JSON scores and reads
// the answer leniently (code fences, prose around the JSON, a bare array, an
// object keyed by step id, step ids as numbers, scores as strings or
// percentages: a number in (1, 100] or a string ending in '%'). Steps it
// does not know are ignored, and a step scored twice keeps its best score.
// Output with no usable score yields an error that wraps ErrBadRanking,
// never a panic.
//
// The ranker is safe for concurrent use when m is.
func NewRanker(m model.BaseChatModel) Ranker { return &llmRanker{model: m} }

type llmRanker struct{ model model.BaseChatModel }

const rankSystemPrompt = `You help a simulated user decide what to do next in a conversation with an AI assistant.
You get the user's goal, the latest exchange and a list of candidate steps.
Score every candidate from 0 to 1: how clearly it is the right next move for the user now.
Answer with JSON only, in this shape:
{"scores":[{"stepId":"<id>","score":0.0,"reasons":["<short reason>"]}]}`

func (r *llmRanker) Rank(ctx context.Context, in RankInput) ([]Candidate, error) {
	if len(in.Steps) == 0 {
		return nil, nil
	}
	var b strings.Builder
	b.WriteString("Goal: ")
	b.WriteString(in.Goal)
	b.WriteString("\n\nLatest exchange:\n")
	if len(in.Traces) == 0 {
		b.WriteString("(none yet)\n")
	}
	formatTraces(&b, in.Traces, 0)
	b.WriteString("\nCandidate steps:\n")
	ids := make(map[string]bool, len(in.Steps))
	for _, st := range in.Steps {
		ids[st.ID] = true
		fmt.Fprintf(&b, "- %s: %s\n", st.ID, st.Instruction)
	}
	msg, err := r.model.Generate(ctx, []*schema.Message{
		schema.SystemMessage(rankSystemPrompt),
		schema.UserMessage(b.String()),
	})
	noteUsage(ctx, msg)
	if err != nil {
		return nil, err
	}
	return parseScores(msgtext.Of(msg), ids)
}

// parseScores extracts candidate scores for known step ids from free text.
func parseScores(text string, known map[string]bool) ([]Candidate, error) {
	cs, _, err := scanScores(text, known)
	return cs, err
}

// scanScores tries to decode JSON at every '{' and '[' of text, in order,
// and returns the first candidates found, with the number of bytes the
// attempts read. The attempts share a budget of bytes (scanBudget) rather
// than a number of tries: prose full of brackets before the JSON, such as a
// checklist, costs little per bracket and does not hide the answer, while
// hostile output still costs linear time.
func scanScores(text string, known map[string]bool) ([]Candidate, int, error) {
	budget := scanBudget(len(text))
	read := 0
	for i := 0; i < len(text) && read < budget; i++ {
		if !opensJSON(text[i]) {
			continue
		}
		v, n, err := decodeAt(text[i:])
		read += n
		if err != nil {
			continue
		}
		if cs := candidates(v, known); len(cs) > 0 {
			return cs, read, nil
		}
	}
	return nil, read, fmt.Errorf("%w: %q", ErrBadRanking, truncate(text, 200))
}

// opensJSON reports whether c may open a JSON object or array.
func opensJSON(c byte) bool { return c == '{' || c == '[' }

// decodeAt decodes the JSON value at the start of s, its numbers as
// json.Number, and returns it with the number of bytes the decoder read.
func decodeAt(s string) (any, int, error) {
	r := &chunkReader{s: s}
	dec := json.NewDecoder(r)
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, r.n, err
}

// scanBudget is how many bytes scanScores may read, in all, from n bytes of
// text.
func scanBudget(n int) int { return 4*n + 64<<10 }

// chunkReader reads a string a few bytes at a time, so that a JSON decoder
// reads little more than it scans, and counts the bytes it handed out.
type chunkReader struct {
	s string
	n int
}

func (r *chunkReader) Read(p []byte) (int, error) {
	if r.n == len(r.s) {
		return 0, io.EOF
	}
	const chunk = 64
	if len(p) > chunk {
		p = p[:chunk]
	}
	k := copy(p, r.s[r.n:])
	r.n += k
	return k, nil
}

var listKeys = []string{"scores", "candidates", "rankings", "ranking", "steps", "results"}

func candidates(v any, known map[string]bool) []Candidate {
	cs := candidateSet{known: known}
	switch v := v.(type) {
	case []any:
		cs.addItems(v)
	case map[string]any:
		cs.addObject(v)
	}
	return cs.out
}

// candidateSet gathers the candidates for known steps, one per step with
// its best score, in the order first seen.
type candidateSet struct {
	out   []Candidate
	known map[string]bool
}

// add adds c when ok and its step is known.
func (cs *candidateSet) add(c Candidate, ok bool) {
	if !ok || !cs.known[c.StepID] {
		return
	}
	i := slices.IndexFunc(cs.out, func(o Candidate) bool { return o.StepID == c.StepID })
	switch {
	case i < 0:
		cs.out = append(cs.out, c)
	case c.Score > cs.out[i].Score:
		cs.out[i] = c
	}
}

func (cs *candidateSet) addItems(list []any) {
	for _, it := range list {
		cs.add(item(it))
	}
}

// addObject adds the candidates of an object: a list under one of
// listKeys, a single candidate, or step ids mapped to scores.
func (cs *candidateSet) addObject(v map[string]any) {
	for _, k := range listKeys {
		if list, ok := v[k].([]any); ok {
			cs.addItems(list)
			return
		}
	}
	if c, ok := item(v); ok && cs.known[c.StepID] {
		cs.add(c, ok)
		return
	}
	cs.addScoreMap(v)
}

// addScoreMap adds the candidates of an object that maps step ids to
// scores, such as {"step_a": 0.9, "step_b": 0.2}, sorted by step id.
func (cs *candidateSet) addScoreMap(v map[string]any) {
	for id, s := range v {
		if f, ok := number(s); ok {
			cs.add(Candidate{StepID: id, Score: f}, true)
		}
	}
	// Map order is random; sort so the record is deterministic.
	slices.SortFunc(cs.out, func(a, b Candidate) int { return cmp.Compare(a.StepID, b.StepID) })
}

func item(v any) (Candidate, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return Candidate{}, false
	}
	c := Candidate{StepID: stepIDOf(m)}
	score, found := scoreOf(m)
	if c.StepID == "" || !found {
		return Candidate{}, false
	}
	c.Score = score
	c.Reasons = reasonsOf(m)
	return c, true
}

// stepIDOf returns the step id of a candidate object, under the first of
// the keys models use for it that holds one.
func stepIDOf(m map[string]any) string {
	for _, k := range []string{"stepId", "step_id", "id", "step", "name"} {
		switch s := m[k].(type) {
		case string:
			if s != "" {
				return s
			}
		case json.Number: // a step named "2" answered as 2
			if s.String() != "" {
				return s.String()
			}
		}
	}
	return ""
}

// scoreOf returns the score of a candidate object, under the first of the
// keys models use for it that holds one.
func scoreOf(m map[string]any) (float64, bool) {
	for _, k := range []string{"score", "confidence", "relevance"} {
		if f, ok := number(m[k]); ok {
			return f, true
		}
	}
	return 0, false
}

// reasonsOf returns the reasons of a candidate object: its "reasons", a
// list or a single string, or else its "reason".
func reasonsOf(m map[string]any) []string {
	var reasons []string
	switch r := m["reasons"].(type) {
	case []any:
		reasons = stringsIn(r)
	case string:
		reasons = []string{r}
	}
	if s, ok := m["reason"].(string); ok && len(reasons) == 0 {
		reasons = []string{s}
	}
	return reasons
}

// stringsIn returns the strings among xs, in order.
func stringsIn(xs []any) []string {
	var out []string
	for _, x := range xs {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// number reads a score: a JSON number or a numeric string in [0, 1], or a
// percentage: a number in (1, 100], or a string ending in '%' with a number
// in [0, 100] before it. Anything else is rejected.
func number(v any) (float64, bool) {
	f, percent, ok := numeric(v)
	switch {
	case !ok || !inRange(f, 0, 100):
		return 0, false
	case percent || f > 1:
		f /= 100
	}
	return f, true
}

// inRange reports whether f is a number in [lo, hi]; NaN is not.
func inRange(f, lo, hi float64) bool {
	return f >= lo && f <= hi
}

// numeric reads a JSON number or a numeric string, which may end in '%'
// (percent).
func numeric(v any) (f float64, percent, ok bool) {
	switch v := v.(type) {
	case json.Number:
		x, err := v.Float64()
		return x, false, err == nil
	case float64:
		return v, false, true
	case string:
		s := strings.TrimSpace(v)
		if t, ok := strings.CutSuffix(s, "%"); ok {
			s, percent = strings.TrimSpace(t), true
		}
		x, err := strconv.ParseFloat(s, 64)
		return x, percent, err == nil
	}
	return 0, false, false
}
