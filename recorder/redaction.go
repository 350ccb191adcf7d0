package recorder

import (
	"encoding/json"
	"slices"
	"sync"
	"unsafe"

	"github.com/cloudwego/eino/schema"
)

// redaction applies the built-in secrets redactor, when on, and then a
// list of redactors in order. The built-in one is called directly rather
// than through a Redactor, as it runs on every field of every record.
type redaction struct {
	secrets bool
	others  []Redactor
	// lastScan remembers the last assessment or injected message the
	// built-in redactor scanned, with its result. Lookout injects the
	// assessment it records into call after call, so most model_request
	// records carry a text scanned before. Nil in a redaction that does not
	// remember.
	lastScan *scanMemo
	// lastCalls remembers the arguments of the tool calls of the last
	// message the built-in redactor scanned, with what it made of each:
	// the tool_started record of each call carries the same text. Nil
	// in a redaction that does not remember.
	lastCalls *callsMemo
}

// callsMemo is the arguments of a message's tool calls, and what the
// built-in redactor made of each.
type callsMemo struct {
	mu    sync.Mutex
	calls []scanned
}

// scanned is a text and what the built-in redactor made of it.
type scanned struct{ in, out string }

// maxRememberedCallTexts is the most tool calls of a message a callsMemo
// remembers.
const maxRememberedCallTexts = 16

// scanMemo is a text and what the built-in redactor made of it.
type scanMemo struct {
	mu      sync.Mutex
	in, out string
}

// secretsRemembered is the built-in redactor, when on, for a text that
// often repeats: the last text scanned is compared (at no cost when it is
// the same string, as an injected assessment is) before it is scanned
// again.
func (rs *redaction) secretsRemembered(s string) string {
	if !rs.secrets {
		return s
	}
	m := rs.lastScan
	if m == nil || len(s) < minSecretText {
		return redactSecrets(s)
	}
	m.mu.Lock()
	in, out := m.in, m.out
	m.mu.Unlock()
	if in == s {
		return out
	}
	out = redactSecrets(s)
	m.mu.Lock()
	m.in, m.out = s, out
	m.mu.Unlock()
	return out
}

// cleanBut reports whether rs leaves the JSON body as it is, when only
// body[from:to] (a JSON string, its quotes included) holds text from
// elsewhere than the code that wrote it: no redactor of Options.Redactors
// is set, and the built-in one, when on, finds no secret in that string.
// The quotes around it, and the JSON structure beyond them, leave the
// matchers of the secrets in it where they would be in the whole body.
func (rs *redaction) cleanBut(body []byte, from, to int) bool {
	if len(rs.others) > 0 {
		return false
	}
	if !rs.secrets {
		return true
	}
	at, keyword := firstSecret(unsafe.String(unsafe.SliceData(body[from:to]), to-from))
	return at < 0 && !keyword
}

// none reports whether rs leaves every text as it is.
func (rs *redaction) none() bool { return !rs.secrets && len(rs.others) == 0 }

// text redacts s. A text too short to hold a secret costs no call when
// only the built-in redactor runs.
func (rs *redaction) text(s string) string {
	if len(s) < minSecretText && len(rs.others) == 0 {
		return s
	}
	return rs.anyText(s)
}

// anyText is text for any s.
func (rs *redaction) anyText(s string) string {
	if rs.secrets {
		s = redactSecrets(s)
	}
	return rs.byOthers(s)
}

// byOthers applies the redactors of Options.Redactors to s, in order.
func (rs *redaction) byOthers(s string) string {
	for _, r := range rs.others {
		s = r.Redact(s)
	}
	return s
}

// payload returns p with every free-text field redacted. It never edits p:
// when something changes it returns a copy.
func (rs *redaction) payload(p Payload) Payload {
	switch p := p.(type) {
	case *RunStarted:
		return rs.runStarted(p)
	case *RunEnded:
		return rs.runEnded(p)
	case *ModelRequest:
		return rs.modelRequest(p)
	case *ModelResponse:
		return rs.modelResponse(p)
	case *Message:
		return rs.messagePayload(p)
	}
	return rs.eventPayload(p)
}

// eventPayload is payload for the tool, assessment, extension and unknown
// payloads.
func (rs *redaction) eventPayload(p Payload) Payload {
	switch p := p.(type) {
	case *ToolStarted:
		return rs.toolStarted(p)
	case *ToolEnded:
		return rs.toolEnded(p)
	case *AssessmentRecord:
		return rs.assessment(p)
	case *Extension:
		return rs.extension(p)
	case *Unknown:
		return rs.unknown(p)
	}
	return p
}

// The methods below each return their payload, or a redacted copy of it
// when one of its free-text fields changes.

func (rs *redaction) runStarted(p *RunStarted) *RunStarted {
	md := rs.metadata(p.Metadata)
	if md == nil {
		return p
	}
	c := *p
	c.Metadata = md
	return &c
}

func (rs *redaction) runEnded(p *RunEnded) *RunEnded {
	e := rs.text(p.Error)
	if e == p.Error {
		return p
	}
	c := *p
	c.Error = e
	return &c
}

func (rs *redaction) modelRequest(p *ModelRequest) *ModelRequest {
	defs := rs.tools(p.ToolDefinitions)
	injected := rs.injected(p.Injected)
	if defs == nil && injected == nil {
		return p
	}
	c := *p
	if defs != nil {
		c.ToolDefinitions = defs
	}
	if injected != nil {
		c.Injected = injected
	}
	return &c
}

// injected returns the injected messages with their content redacted, or
// nil when none changes.
func (rs *redaction) injected(in []InjectedMessage) []InjectedMessage {
	var out []InjectedMessage
	for i, m := range in {
		text := rs.byOthers(rs.secretsRemembered(m.Content))
		if text == m.Content {
			continue
		}
		if out == nil {
			out = slices.Clone(in)
		}
		out[i].Content = text
	}
	return out
}

func (rs *redaction) modelResponse(p *ModelResponse) *ModelResponse {
	m, e := rs.message(p.Message), rs.text(p.Error)
	if m == p.Message && e == p.Error {
		return p
	}
	c := *p
	c.Message, c.Error = m, e
	return &c
}

func (rs *redaction) messagePayload(p *Message) *Message {
	m := rs.message(p.Message)
	if m == p.Message {
		return p
	}
	c := *p
	c.Message = m
	return &c
}

func (rs *redaction) toolStarted(p *ToolStarted) *ToolStarted {
	a := rs.callArguments(p.Arguments)
	if a == p.Arguments {
		return p
	}
	c := *p
	c.Arguments = a
	return &c
}

func (rs *redaction) toolEnded(p *ToolEnded) *ToolEnded {
	res, e := rs.text(p.Result), rs.text(p.Error)
	parts := rs.parts(p.Parts)
	if res == p.Result && e == p.Error && parts == nil {
		return p
	}
	c := *p
	c.Result, c.Error = res, e
	if parts != nil {
		c.Parts = parts
	}
	return &c
}

// parts returns a copy of a tool result's parts with their text redacted,
// or nil when no text changes.
func (rs *redaction) parts(parts []Part) []Part {
	var out []Part
	for i, part := range parts {
		if part.Type != PartText {
			continue
		}
		if t := rs.text(part.Text); t != part.Text {
			if out == nil {
				out = slices.Clone(parts)
			}
			out[i].Text = t
		}
	}
	return out
}

func (rs *redaction) assessment(p *AssessmentRecord) *AssessmentRecord {
	// The model is shown the same text, injected into its next call.
	md := rs.byOthers(rs.secretsRemembered(p.Markdown))
	if md == p.Markdown {
		return p
	}
	c := *p
	c.Markdown = md
	return &c
}

func (rs *redaction) extension(p *Extension) *Extension {
	b, ok := rs.json(p.Body)
	if !ok {
		return p
	}
	return &Extension{Name: p.Name, Body: b}
}

func (rs *redaction) unknown(p *Unknown) *Unknown {
	b, ok := rs.json(p.Body)
	if !ok {
		return p
	}
	return &Unknown{Name: p.Name, Body: b}
}

// tools returns a redacted copy of defs, or nil when nothing changes.
// Descriptions and parameter schemas are written by whoever built the
// tools, but they are free text all the same and may quote credentials.
func (rs *redaction) tools(defs []ToolDefinition) []ToolDefinition {
	var out []ToolDefinition
	for i, d := range defs {
		desc := rs.text(d.Description)
		params, changed := rs.json(d.Parameters)
		if desc == d.Description && !changed {
			continue
		}
		if out == nil {
			out = append([]ToolDefinition(nil), defs...)
		}
		out[i].Description = desc
		if changed {
			out[i].Parameters = params
		}
	}
	return out
}

// metadata returns a redacted copy of md, or nil when nothing changes.
func (rs *redaction) metadata(md map[string]string) map[string]string {
	var out map[string]string
	for k, v := range md {
		if r := rs.text(v); r != v {
			if out == nil {
				out = make(map[string]string, len(md))
				for k2, v2 := range md {
					out[k2] = v2
				}
			}
			out[k] = r
		}
	}
	return out
}

// json redacts a JSON body as text. If the result is no longer valid JSON
// it is stored as a JSON string, so the record still encodes.
func (rs *redaction) json(body json.RawMessage) (json.RawMessage, bool) {
	var s string
	if len(rs.others) == 0 {
		// Only the built-in redactor reads s, and it keeps no part of it
		// (a text it changes is a new string), so s can share body's
		// bytes rather than copy them.
		s = unsafe.String(unsafe.SliceData(body), len(body))
	} else {
		s = string(body)
	}
	r := rs.text(s)
	if r == s {
		return nil, false
	}
	if b := json.RawMessage(r); validJSON(b) {
		return b, true
	}
	return json.RawMessage(appendString(nil, r)), true
}

// message returns m, or a copy of m with its text redacted. Slices are
// copied before they are changed; the caller's message is never edited.
func (rs *redaction) message(m *schema.Message) *schema.Message {
	if m == nil {
		return nil
	}
	e := messageEdit{m: m}
	if s := rs.text(m.Content); s != m.Content {
		e.clone().Content = s
	}
	if s := rs.text(m.ReasoningContent); s != m.ReasoningContent {
		e.clone().ReasoningContent = s
	}
	if len(m.ToolCalls) > 0 {
		rs.toolCalls(&e)
	}
	if len(m.MultiContent)+len(m.UserInputMultiContent)+len(m.AssistantGenMultiContent) > 0 {
		rs.multiContent(&e)
		rs.userInputParts(&e)
		rs.assistantParts(&e)
	}
	return e.result()
}

// messageEdit is a copy-on-write redaction of the message m: the first
// change clones m into c, and each of c's slices is copied before its
// first element changes, so the caller's message is never edited.
type messageEdit struct {
	m, c *schema.Message
}

// clone returns the copy of the message, making it on first use.
func (e *messageEdit) clone() *schema.Message {
	if e.c == nil {
		cp := *e.m
		e.c = &cp
	}
	return e.c
}

// result returns the copy when something changed, and m when nothing did.
func (e *messageEdit) result() *schema.Message {
	if e.c == nil {
		return e.m
	}
	return e.c
}

// owned returns *dst after copying it when it still shares its backing
// array with orig, the caller's slice, so that writing to its elements
// leaves orig alone. Both are non-empty.
func owned[T any](dst *[]T, orig []T) []T {
	if &(*dst)[0] == &orig[0] {
		*dst = append([]T(nil), orig...)
	}
	return *dst
}

func (rs *redaction) toolCalls(e *messageEdit) {
	m := rs.lastCalls
	if m == nil || !rs.secrets || len(e.m.ToolCalls) > maxRememberedCallTexts {
		for i, tc := range e.m.ToolCalls {
			if s := rs.text(tc.Function.Arguments); s != tc.Function.Arguments {
				owned(&e.clone().ToolCalls, e.m.ToolCalls)[i].Function.Arguments = s
			}
		}
		return
	}
	var buf [maxRememberedCallTexts]scanned
	calls := buf[:0]
	for i, tc := range e.m.ToolCalls {
		args := tc.Function.Arguments
		clean := redactSecrets(args)
		calls = append(calls, scanned{args, clean})
		if s := rs.byOthers(clean); s != args {
			owned(&e.clone().ToolCalls, e.m.ToolCalls)[i].Function.Arguments = s
		}
	}
	m.mu.Lock()
	m.calls = append(m.calls[:0], calls...)
	m.mu.Unlock()
}

// callArguments redacts a tool call's arguments, taking what the built-in
// redactor made of them from the last message's tool calls when they are
// the arguments of one of those.
func (rs *redaction) callArguments(s string) string {
	m := rs.lastCalls
	if m == nil || !rs.secrets || len(s) < minSecretText {
		return rs.text(s)
	}
	m.mu.Lock()
	for _, c := range m.calls {
		if c.in == s {
			m.mu.Unlock()
			return rs.byOthers(c.out)
		}
	}
	m.mu.Unlock()
	return rs.anyText(s)
}

func (rs *redaction) multiContent(e *messageEdit) {
	parts := e.m.MultiContent
	for i, part := range parts {
		if s := rs.text(part.Text); s != part.Text {
			owned(&e.clone().MultiContent, parts)[i].Text = s
		}
	}
}

func (rs *redaction) userInputParts(e *messageEdit) {
	for i, part := range e.m.UserInputMultiContent {
		if s := rs.text(part.Text); s != part.Text {
			owned(&e.clone().UserInputMultiContent, e.m.UserInputMultiContent)[i].Text = s
		}
	}
}

func (rs *redaction) assistantParts(e *messageEdit) {
	for i, part := range e.m.AssistantGenMultiContent {
		text := rs.text(part.Text)
		reasoning := rs.reasoning(part.Reasoning)
		if text == part.Text && reasoning == nil {
			continue
		}
		parts := owned(&e.clone().AssistantGenMultiContent, e.m.AssistantGenMultiContent)
		parts[i].Text = text
		if reasoning != nil {
			parts[i].Reasoning = reasoning
		}
	}
}

// reasoning returns a redacted copy of r, or nil when r is nil or its
// text does not change.
func (rs *redaction) reasoning(r *schema.MessageOutputReasoning) *schema.MessageOutputReasoning {
	if r == nil {
		return nil
	}
	s := rs.text(r.Text)
	if s == r.Text {
		return nil
	}
	c := *r
	c.Text = s
	return &c
}
