package observer

// Escalation says how the severity of a detected pattern rises while the
// pattern persists: it is first reported at info (a nudge), raised to
// caution once the pattern has gone on for CautionAfter more calls, and to
// warning after WarningAfter more calls. A negative field means never.
//
// The zero Escalation means the detector's default; any other value is
// taken as it is, so Escalation{WarningAfter: 4} reports at caution from
// the start and at warning after 4 more calls. It is a plain value, safe
// for concurrent use.
type Escalation struct {
	CautionAfter int
	WarningAfter int
}

// Severity grades a pattern that has gone on for over calls past the point
// where it is first reported.
func (e Escalation) Severity(over int) Severity {
	switch {
	case e.WarningAfter >= 0 && over >= e.WarningAfter:
		return Warning
	case e.CautionAfter >= 0 && over >= e.CautionAfter:
		return Caution
	}
	return Info
}

// Or returns e, or def when e is zero.
func (e Escalation) Or(def Escalation) Escalation {
	if e == (Escalation{}) {
		return def
	}
	return e
}
