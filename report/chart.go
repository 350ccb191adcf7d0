package report

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/lookout-go/lookout/observer/resource"
	"github.com/lookout-go/lookout/recorder"
)

// Chart geometry, in SVG user units: the plot area and the margins
// around it for the axis labels.
const (
	chartWidth  = 720
	chartHeight = 160
	chartLeft   = 40
	chartTop    = 8
	chartRight  = 8
	chartBottom = 20
)

// chart is a run's budget burn-down: for each limited resource, the
// share left after each record, with the bands where the Resource
// observer speaks with caution and with a warning.
type chart struct {
	Width, Height    int
	Left, Top        int
	PlotW, PlotH     int
	Bottom           int // y of the x axis
	CautionY         int // top of the caution band
	CautionH         int
	WarningY         int // top of the warning band
	WarningH         int
	Caution, Warning string // the bands' thresholds as percentages left
	Lines            []*line
	Records          int
}

// line is one resource's burn-down.
type line struct {
	Resource string // tokens, model_calls, tool_calls, time
	Label    string
	Points   string // the SVG polyline's points
	Left     string // what is left at the end, as a percentage
	Exceeded bool
}

// burnDown draws the run's burn-down, or returns nil when the run had no
// limits.
func burnDown(r *run) *chart {
	if r.started == nil {
		return nil
	}
	active, clock := counters(r)
	if len(active) == 0 {
		return nil
	}
	c := newChart(len(r.records), r.started.Thresholds)
	for i := range r.records {
		x := c.x(i, len(r.records))
		for _, s := range active {
			s.follow(&r.records[i], s == clock, r.first)
			s.plot(c, x)
		}
	}
	for _, s := range active {
		s.finish()
		c.Lines = append(c.Lines, &line{
			Resource: s.resource, Label: s.label, Points: s.points.String(),
			Left: pct(max(s.left(), 0)), Exceeded: s.used > s.limit,
		})
	}
	return c
}

// newChart lays out an empty chart of the given number of records, with
// its bands at the recorded thresholds, or at the Resource observer's
// defaults when none were recorded.
func newChart(records int, th *recorder.Thresholds) *chart {
	caution, warning := resource.DefaultCautionAt, resource.DefaultWarningAt
	if th != nil {
		caution, warning = min(max(th.CautionAt, 0), 1), min(max(th.WarningAt, 0), 1)
	}
	c := &chart{
		Width: chartWidth, Height: chartHeight, Left: chartLeft, Top: chartTop,
		PlotW: chartWidth - chartLeft - chartRight, PlotH: chartHeight - chartTop - chartBottom,
		Records: records,
	}
	c.Bottom = c.Top + c.PlotH
	c.CautionY = c.y(caution)
	c.WarningY = c.y(warning)
	c.CautionH = max(c.WarningY-c.CautionY, 0)
	c.WarningH = c.Bottom - c.WarningY
	c.Caution = pct(caution)
	c.Warning = pct(warning)
	return c
}

// counters returns a counter for each resource the run started by r
// limits, and the one of them that follows the time, or nil.
func counters(r *run) (active []*counter, clock *counter) {
	l := r.started.Limits
	series := []*counter{
		{resource: "tokens", label: "tokens", limit: l.MaxTokens},
		{resource: "model_calls", label: "model calls", limit: l.MaxModelCalls},
		{resource: "tool_calls", label: "tool calls", limit: l.MaxToolCalls},
	}
	if deadline := deadlineOf(r); !deadline.IsZero() && !r.first.IsZero() && deadline.After(r.first) {
		clock = &counter{resource: "time", label: "time", limit: int64(deadline.Sub(r.first))}
		series = append(series, clock)
	}
	budgeted := charged(r.records)
	active = series[:0]
	for _, s := range series {
		if s.limit > 0 {
			s.fromBudget = budgeted[s.resource]
			active = append(active, s)
		}
	}
	return active, clock
}

// deadlineOf is when the run started by r had to end: its timeout after
// its first record, or else its deadline, zero when it had neither.
func deadlineOf(r *run) time.Time {
	l := r.started.Limits
	if l.Timeout > 0 && !r.first.IsZero() {
		return r.first.Add(l.Timeout)
	}
	return l.Deadline
}

// charged is the set of resources that records hold budget charges for.
func charged(records []recorder.Record) map[string]bool {
	budgeted := map[string]bool{}
	for i := range records {
		if b, ok := records[i].Payload.(*recorder.BudgetRecord); ok && b.Event == recorder.BudgetCharged {
			budgeted[b.Resource] = true
		}
	}
	return budgeted
}

// follow brings the counter up to date with rec: the time since first
// for the clock, what rec consumed for the other resources.
func (s *counter) follow(rec *recorder.Record, clock bool, first time.Time) {
	if !clock {
		s.charge(rec)
		return
	}
	if !rec.RecordedAt.IsZero() {
		s.set(int64(rec.RecordedAt.Sub(first)), s.limit)
	}
}

// x is the chart's x for record i of n, spread evenly across the plot.
func (c *chart) x(i, n int) int {
	if n < 2 {
		return c.Left
	}
	return c.Left + i*c.PlotW/(n-1)
}

// y is the chart's y for a share left, from 1 (top) to 0 (bottom).
func (c *chart) y(left float64) int {
	return c.Top + int(math.Round((1-left)*float64(c.PlotH)))
}

func pct(f float64) string {
	return strconv.Itoa(int(math.Round(f*100))) + "%"
}

// counter follows one resource through a run's records.
type counter struct {
	resource, label string
	limit, used     int64
	fromBudget      bool // the run recorded budget charges for it: use their totals

	points  strings.Builder
	plotted bool
	// colX and colY are the column being drawn and its level so far;
	// level is the level drawn last, and wroteX the last x written.
	colX, colY, level, wroteX int
}

func (s *counter) left() float64 {
	return 1 - float64(s.used)/float64(s.limit)
}

func (s *counter) set(used, limit int64) {
	s.used = used
	if limit > 0 {
		s.limit = limit
	}
}

// charge counts what rec consumed of the resource.
func (s *counter) charge(rec *recorder.Record) {
	if s.fromBudget {
		if p, ok := rec.Payload.(*recorder.BudgetRecord); ok && p.Resource == s.resource && p.Event == recorder.BudgetCharged {
			s.set(p.Used, p.Limit)
		}
		return
	}
	if resource, n := consumed(rec.Payload); resource == s.resource {
		s.used += n
	}
}

// consumed is the resource that p, a model or tool record, shows
// consumed and how much of it; "" for other records.
func consumed(p recorder.Payload) (string, int64) {
	switch p := p.(type) {
	case *recorder.ModelResponse:
		if p != nil && p.UsageReported {
			return "tokens", p.Usage.TotalTokens
		}
	case *recorder.ModelRequest:
		return "model_calls", 1
	case *recorder.ToolStarted:
		return "tool_calls", 1
	}
	return "", 0
}

// plot puts the resource's level after a record at x. The line is a
// step: a change shows as a drop at the column where it happened, and a
// column holding many changes shows only its last, so the points stay
// few however many records there are.
func (s *counter) plot(c *chart, x int) {
	y := c.y(min(max(s.left(), 0), 1))
	if !s.plotted {
		s.plotted = true
		s.colX, s.colY, s.level, s.wroteX = x, y, y, x
		s.point(x, y)
		return
	}
	if x != s.colX {
		s.flush()
		s.colX = x
	}
	s.colY = y
}

// flush draws the current column's drop, if its level changed.
func (s *counter) flush() {
	if s.colY == s.level {
		return
	}
	if s.wroteX != s.colX {
		s.point(s.colX, s.level)
	}
	s.point(s.colX, s.colY)
	s.wroteX, s.level = s.colX, s.colY
}

// finish draws the line up to the last column.
func (s *counter) finish() {
	s.flush()
	if s.wroteX != s.colX {
		s.point(s.colX, s.level)
		s.wroteX = s.colX
	}
}

func (s *counter) point(x, y int) {
	if s.points.Len() > 0 {
		s.points.WriteByte(' ')
	}
	s.points.WriteString(strconv.Itoa(x))
	s.points.WriteByte(',')
	s.points.WriteString(strconv.Itoa(y))
}
