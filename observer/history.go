package observer

import (
	"fmt"
	"strconv"
)

// History sizes.
const (
	// DefaultHistorySize is how many past assessments the pipeline keeps
	// when no other size is given.
	DefaultHistorySize = 20
	// MaxHistorySize is the largest [PipelineOptions].HistorySize that
	// [NewPipeline] accepts. An entry of the history is 56 bytes (on
	// 64-bit platforms) and holds the assessments produced on one call,
	// so 1,000 entries take about 56 KB besides those assessments, which
	// rarely run past a kilobyte each: about 1 MB per session at most for
	// the built-in observers.
	MaxHistorySize = 1_000
)

// PastAssessment is one entry of the session's assessment history: a
// [CurrentAssessment] as it was when produced. The pipeline appends one to
// the session log of PastAssessment each time it produces a new current
// assessment, and keeps the last [PipelineOptions].HistorySize of them.
//
// Read the history with session.LogOf[observer.PastAssessment](store), or
// from an observer with [Context.History] and [Context.Trend]. It is a
// plain value, safe to read concurrently; entries in the log must not be
// modified.
type PastAssessment struct {
	CurrentAssessment
}

// Trend says which way severity is moving across assessments. It is a
// plain value, safe for concurrent use.
type Trend int

// The trends. The zero value is Steady.
const (
	// Steady: the latest severity equals the previous one, or there is
	// no previous one to compare with.
	Steady Trend = iota
	// Escalating: the latest severity is higher than the previous one.
	Escalating
	// Easing: the latest severity is lower than the previous one.
	Easing
)

// trendNames are the trends' names, by trend.
var trendNames = [...]string{Steady: "steady", Escalating: "escalating", Easing: "easing"}

// String returns "steady", "escalating" or "easing".
func (t Trend) String() string {
	if t < Steady || t > Easing {
		return "trend(" + strconv.Itoa(int(t)) + ")"
	}
	return trendNames[t]
}

// MarshalText encodes the trend as its name.
func (t Trend) MarshalText() ([]byte, error) {
	if t < Steady || t > Easing {
		return nil, fmt.Errorf("observer: unknown trend %d", int(t))
	}
	return []byte(t.String()), nil
}

// UnmarshalText decodes a trend name.
func (t *Trend) UnmarshalText(b []byte) error {
	for v, name := range trendNames {
		if name == string(b) {
			*t = Trend(v)
			return nil
		}
	}
	return fmt.Errorf("observer: unknown trend %q", b)
}

// trendOf compares the latest severity with the one before it.
func trendOf(latest, previous Severity) Trend {
	switch {
	case latest > previous:
		return Escalating
	case latest < previous:
		return Easing
	}
	return Steady
}

// severityOf returns the severity of the named observer's assessment in c.
func (c CurrentAssessment) severityOf(name string) (Severity, bool) {
	for _, a := range c.Assessments {
		if a.Observer == name {
			return a.Severity, true
		}
	}
	return Info, false
}
