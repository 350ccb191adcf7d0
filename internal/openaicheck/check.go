package openaicheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/lookout-go/lookout/recorder"
	"github.com/lookout-go/lookout/recorder/messages"
)

// Schema is a JSON Schema document, read once and safe for concurrent
// use.
type Schema struct {
	root map[string]any
}

// Load reads the JSON Schema in the file at path.
func Load(path string) (*Schema, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var root map[string]any
	if err := dec.Decode(&root); err != nil {
		return nil, fmt.Errorf("openaicheck: %s: %w", path, err)
	}
	return &Schema{root: root}, nil
}

// Validate returns every way v, a JSON value as encoding/json decodes it
// with UseNumber, breaks the schema; nil when it does not.
func (s *Schema) Validate(v any) []string {
	c := &checker{root: s.root}
	c.check("$", s.root, v)
	return c.problems
}

type checker struct {
	root     map[string]any
	problems []string
	// misfits counts the problems that show a value is of another kind
	// than a schema describes (a wrong type where the check started, or a
	// value outside a one-value enum, such as a role), so that a failed
	// oneOf names the alternative meant rather than the nearest by count.
	misfits int
	start   string
}

func (c *checker) fail(path, format string, args ...any) {
	c.problems = append(c.problems, path+": "+fmt.Sprintf(format, args...))
}

// sub checks v against schema on a checker of its own, and returns what
// it found: oneOf and anyOf try branches without reporting them.
func (c *checker) sub(path string, schema map[string]any, v any) ([]string, int) {
	s := &checker{root: c.root, start: path}
	s.check(path, schema, v)
	return s.problems, s.misfits
}

// check checks v against schema: its reference, type, enum, members or
// items, and alternatives.
func (c *checker) check(path string, schema map[string]any, v any) {
	if !c.followRef(path, schema, v) || !c.checkType(path, schema, v) {
		return
	}
	c.checkEnum(path, schema, v)
	if m, ok := v.(map[string]any); ok {
		c.object(path, schema, m)
	}
	if list, ok := v.([]any); ok {
		c.array(path, schema, list)
	}
	c.branches(path, schema, v)
}

// branches checks v against the oneOf and the anyOf of schema, if it has
// them.
func (c *checker) branches(path string, schema map[string]any, v any) {
	if branches, ok := schema["oneOf"].([]any); ok {
		c.alternatives(path, branches, v, true)
	}
	if branches, ok := schema["anyOf"].([]any); ok {
		c.alternatives(path, branches, v, false)
	}
}

// followRef checks v against the schema the $ref of schema names, if it
// has one, and reports false when the reference does not resolve, which
// ends the check.
func (c *checker) followRef(path string, schema map[string]any, v any) bool {
	ref, ok := schema["$ref"].(string)
	if !ok {
		return true
	}
	target, err := c.resolve(ref)
	if err != nil {
		c.fail(path, "%v", err)
		return false
	}
	c.check(path, target, v)
	return true
}

// checkType checks v against the type of schema, if it has one, and
// reports false when v is of another type, which ends the check.
func (c *checker) checkType(path string, schema map[string]any, v any) bool {
	t, ok := schema["type"]
	if !ok || hasType(t, v) {
		return true
	}
	c.fail(path, "want type %v, got %s", t, typeOf(v))
	if path == c.start {
		c.misfits++
	}
	return false
}

// checkEnum checks that v is one of the values of the enum of schema, if
// it has one.
func (c *checker) checkEnum(path string, schema map[string]any, v any) {
	enum, ok := schema["enum"].([]any)
	if !ok || slices.ContainsFunc(enum, func(e any) bool { return equal(e, v) }) {
		return
	}
	c.fail(path, "%v is not one of %v", v, enum)
	if len(enum) == 1 {
		c.misfits++
	}
}

func (c *checker) object(path string, schema map[string]any, m map[string]any) {
	c.required(path, schema, m)
	props, _ := schema["properties"].(map[string]any)
	for k, pv := range m {
		if ps, ok := props[k].(map[string]any); ok {
			c.check(path+"."+k, ps, pv)
		}
	}
}

// required checks that m has every member schema requires.
func (c *checker) required(path string, schema map[string]any, m map[string]any) {
	required, _ := schema["required"].([]any)
	for _, r := range required {
		if k, _ := r.(string); k != "" {
			if _, has := m[k]; !has {
				c.fail(path, "missing required %q", k)
			}
		}
	}
}

func (c *checker) array(path string, schema map[string]any, list []any) {
	if n, ok := schema["minItems"].(json.Number); ok {
		if min, err := n.Int64(); err == nil && int64(len(list)) < min {
			c.fail(path, "%d items, want at least %d", len(list), min)
		}
	}
	if items, ok := schema["items"].(map[string]any); ok {
		for i, item := range list {
			c.check(fmt.Sprintf("%s[%d]", path, i), items, item)
		}
	}
}

// alternatives checks that v matches exactly one of branches (oneOf) or
// at least one (anyOf).
func (c *checker) alternatives(path string, branches []any, v any, exactlyOne bool) {
	matched, closest := c.tryBranches(path, branches, v)
	switch {
	case matched == 0:
		c.fail(path, "matches none of %d alternatives; nearest: %s", len(branches), strings.Join(closest.problems, "; "))
	case exactlyOne && matched > 1:
		c.fail(path, "matches %d alternatives, want exactly one", matched)
	}
}

// tryBranches checks v against each branch and returns how many it
// matches and the nearest miss.
func (c *checker) tryBranches(path string, branches []any, v any) (int, nearest) {
	matched := 0
	var closest nearest
	for _, b := range branches {
		bs, ok := b.(map[string]any)
		if !ok {
			continue
		}
		problems, misfits := c.sub(path, bs, v)
		if len(problems) == 0 {
			matched++
		} else {
			closest.offer(problems, misfits)
		}
	}
	return matched, closest
}

// nearest is the branch v missed by least: the fewest misfits, then the
// fewest problems.
type nearest struct {
	problems []string
	misfits  int
}

// offer keeps a branch's problems and misfits when they are nearer than
// those kept.
func (n *nearest) offer(problems []string, misfits int) {
	if n.problems == nil || misfits < n.misfits || (misfits == n.misfits && len(problems) < len(n.problems)) {
		n.problems, n.misfits = problems, misfits
	}
}

// resolve follows a local reference such as "#/$defs/Name".
func (c *checker) resolve(ref string) (map[string]any, error) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("reference %q is not local", ref)
	}
	var node any = c.root
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, ok := node.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("reference %q does not resolve", ref)
		}
		node = m[part]
	}
	m, ok := node.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("reference %q does not resolve", ref)
	}
	return m, nil
}

func hasType(t any, v any) bool {
	if list, ok := t.([]any); ok {
		return slices.ContainsFunc(list, func(e any) bool { return hasType(e, v) })
	}
	name, _ := t.(string)
	got := typeOf(v)
	return name == got || (name == "number" && got == "integer")
}

// typeOf is the JSON Schema type of v.
func typeOf(v any) string {
	if n, ok := v.(json.Number); ok {
		return numberType(n)
	}
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// numberType is "integer" for a number that is one, else "number".
func numberType(n json.Number) string {
	if _, err := n.Int64(); err == nil {
		return "integer"
	}
	return "number"
}

func equal(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return bytes.Equal(x, y)
}

// Message is what Pairing reads of a chat message.
type Message struct {
	Role       string `json:"role"`
	ToolCallID string `json:"tool_call_id"`
	ToolCalls  []struct {
		ID string `json:"id"`
	} `json:"tool_calls"`
}

// Pairing returns every break of the tool-call pairing rules in a
// conversation: each tool call of an assistant message must be answered
// by one of the tool messages that directly follow it, and each of those
// must name, by a non-empty tool_call_id, a call of that message that no
// earlier one answered.
func Pairing(msgs []Message) []string {
	var p pairing
	for i, m := range msgs {
		if m.Role == "tool" {
			p.answer(i, m)
			continue
		}
		p.closeCalls(i)
		p.openCalls(m)
	}
	p.closeCalls(len(msgs))
	slices.Sort(p.problems)
	return p.problems
}

// pairing is what Pairing has found so far.
type pairing struct {
	problems []string
	open     map[string]int // calls of the last assistant message not yet answered
}

// answer takes message i, a tool message, as the answer to one open call.
func (p *pairing) answer(i int, m Message) {
	switch {
	case m.ToolCallID == "":
		p.problems = append(p.problems, fmt.Sprintf("message %d: a tool message without tool_call_id", i))
	case p.open[m.ToolCallID] == 0:
		p.problems = append(p.problems, fmt.Sprintf("message %d: tool message answers %q, which is no open call of the assistant message before it", i, m.ToolCallID))
	default:
		p.open[m.ToolCallID]--
	}
}

// closeCalls reports the calls still open when message at, not a tool
// message, comes, and forgets them.
func (p *pairing) closeCalls(at int) {
	for id, n := range p.open {
		if n > 0 {
			p.problems = append(p.problems, fmt.Sprintf("message %d: tool call %q is never answered", at, id))
		}
	}
	p.open = nil
}

// openCalls opens the tool calls of m when it is an assistant message.
func (p *pairing) openCalls(m Message) {
	if m.Role != "assistant" || len(m.ToolCalls) == 0 {
		return
	}
	p.open = map[string]int{}
	for _, c := range m.ToolCalls {
		p.open[c.ID]++
	}
}

// Find returns the Chat Completions message schema that sits next to the
// module root, in ../shared/fixtures/openai, when it is there.
func Find() (*Schema, bool) {
	s, err := findOnce()
	return s, err == nil
}

var findOnce = sync.OnceValues(func() (*Schema, error) {
	fixtures, err := SharedFixtures()
	if err != nil {
		return nil, err
	}
	return Load(filepath.Join(fixtures, "openai", "chat_message.schema.json"))
})

// SharedFixtures returns the shared fixtures folder, ../shared/fixtures
// from the module root above the working directory, or an error wrapping
// os.ErrNotExist when it is not there.
func SharedFixtures() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("module root (go.mod) above the working directory: %w", os.ErrNotExist)
		}
		dir = parent
	}
	fixtures := filepath.Join(dir, "..", "shared", "fixtures")
	if _, err := os.Stat(fixtures); err != nil {
		return "", err
	}
	return fixtures, nil
}

// Conversations exports every run in records as OpenAI-style messages and
// returns every problem Check finds in them, each prefixed with its run.
func Conversations(records []recorder.Record) []string {
	var problems []string
	seen := map[string]bool{}
	for _, r := range records {
		if seen[r.RunID] {
			continue
		}
		seen[r.RunID] = true
		problems = append(problems, runProblems(records, r.RunID)...)
	}
	return problems
}

// runProblems exports run id as OpenAI-style messages and returns every
// problem Check finds in them, each prefixed with the run.
func runProblems(records []recorder.Record, id string) []string {
	msgs, err := messages.FromRecords(records, &messages.Options{RunID: id})
	if err != nil {
		return []string{fmt.Sprintf("run %s: %v", id, err)}
	}
	var problems []string
	raw := make([]json.RawMessage, len(msgs))
	for i := range msgs {
		if raw[i], err = json.Marshal(msgs[i]); err != nil {
			problems = append(problems, fmt.Sprintf("run %s: message %d: %v", id, i, err))
		}
	}
	for _, p := range Check(raw) {
		problems = append(problems, "run "+id+": "+p)
	}
	return problems
}

// Check returns every problem of a conversation given as JSON values,
// one per message: the pairing rules always, and the schema when Find
// finds it.
func Check(msgs []json.RawMessage) []string {
	var problems []string
	pairs := make([]Message, len(msgs))
	schema, haveSchema := Find()
	for i, raw := range msgs {
		if err := json.Unmarshal(raw, &pairs[i]); err != nil {
			problems = append(problems, fmt.Sprintf("message %d: %v", i, err))
			continue
		}
		if !haveSchema {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			problems = append(problems, fmt.Sprintf("message %d: %v", i, err))
			continue
		}
		for _, p := range schema.Validate(v) {
			problems = append(problems, fmt.Sprintf("message %d: %s", i, p))
		}
	}
	return append(problems, Pairing(pairs)...)
}
