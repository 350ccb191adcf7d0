package recorder

import (
	"fmt"
	"unicode/utf8"
)

// safePrepare is prepare, turning a panicking Redactor into an error: the
// record is then dropped rather than written unredacted. It also fails a
// record holding JSON nested too deeply for a reader to read back.
func (r *Recorder) safePrepare(p Payload, owned bool) (out Payload, err error) {
	if _, ok := p.(*BudgetRecord); ok {
		// Counts and names only: nothing to cut, redact or check.
		return p, nil
	}
	defer func() {
		if v := recover(); v != nil {
			out, err = nil, fmt.Errorf("%w: %v", ErrRedactorPanicked, v)
		}
	}()
	return r.prepare(p, owned)
}

// prepare fills in sizes, truncates long tool fields, keeps large media
// by reference and redacts text. When owned is false p belongs to the
// caller and is copied, not edited. It fails a payload holding JSON nested
// too deeply for a reader to read back.
func (r *Recorder) prepare(p Payload, owned bool) (Payload, error) {
	rs := &r.redaction
	switch t := p.(type) {
	case *ToolStarted:
		return r.prepareToolStarted(t, owned), nil
	case *ToolEnded:
		return r.prepareToolEnded(t, owned), nil
	case *ModelResponse:
		if rs.none() {
			return t, nil
		}
		return rs.modelResponse(t), nil
	case *ModelRequest:
		if !rs.none() {
			t = rs.modelRequest(t)
		}
		return t, checkDepth(t, owned)
	}
	// The kinds a run records once or now and then.
	p = capMedia(p, r.maxMedia)
	if !rs.none() {
		p = rs.payload(p)
	}
	return p, checkDepth(p, owned)
}

// fieldLimit is the cut-off for tool arguments and results, or a negative
// value for none.
func (r *Recorder) fieldLimit() int {
	if r.maxField == 0 {
		return DefaultMaxFieldBytes
	}
	return r.maxField
}

// prepareToolStarted is prepare for a tool_started payload.
func (r *Recorder) prepareToolStarted(t *ToolStarted, owned bool) *ToolStarted {
	limit := r.fieldLimit()
	full := max(t.ArgumentsBytes, len(t.Arguments))
	over := limit > 0 && len(t.Arguments) > limit
	if over || t.ArgumentsBytes != full {
		if !owned {
			c := *t
			t = &c
		}
		t.ArgumentsBytes = full
		if over {
			// cut redacts the arguments, the only free text here.
			t.Arguments = r.cut(t.Arguments, limit)
			t.ArgumentsTruncated = true
			return t
		}
	}
	if r.redaction.none() {
		return t
	}
	return r.redaction.toolStarted(t)
}

// prepareToolEnded is prepare for a tool_ended payload.
func (r *Recorder) prepareToolEnded(t *ToolEnded, owned bool) *ToolEnded {
	if len(t.Parts) > 0 {
		t = capMedia(t, r.maxMedia).(*ToolEnded)
	}
	limit := r.fieldLimit()
	full := max(t.ResultBytes, len(t.Result))
	over := limit > 0 && (len(t.Result) > limit || partsOver(t.Parts, limit))
	if over || t.ResultBytes != full {
		if !owned {
			c := *t
			t = &c
		}
		t.ResultBytes = full
		if over {
			// cut redacts the result; scanning it again would be
			// wasted work, so only the error is left to redact.
			t.Result = r.cut(t.Result, limit)
			t.Truncated = true
			t.Error = r.redaction.text(t.Error)
			t.Parts = r.cutParts(t.Parts, limit)
			return t
		}
	}
	if r.redaction.none() {
		return t
	}
	return r.redaction.toolEnded(t)
}

// redactMargin is how much text past the cut-off is redacted along with
// the kept part, so a secret straddling the cut is still recognised.
const redactMargin = 256

// cut redacts and truncates s to at most limit bytes at a UTF-8 boundary.
func (r *Recorder) cut(s string, limit int) string {
	if len(s) > limit+redactMargin {
		// At a rune boundary too: redaction may shorten the text enough
		// for all of it to be kept.
		s = s[:runeStart(s, limit+redactMargin)]
	}
	s = r.redaction.text(s)
	if len(s) <= limit {
		return s
	}
	return s[:runeStart(s, limit)]
}

// runeStart returns the start of the rune holding byte i of s, so that
// s[:runeStart(s, i)] is s cut to at most i bytes at a rune boundary. In
// invalid UTF-8, where no rune starts within a rune's length of i, it
// returns i.
func runeStart(s string, i int) int {
	for j := i; j >= 0 && j > i-utf8.UTFMax; j-- {
		if utf8.RuneStart(s[j]) {
			return j
		}
	}
	return i
}
