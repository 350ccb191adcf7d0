package report

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/lookout-go/lookout/observer"
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
	Used     string // what is used at the end, of the limit
	Exceeded bool
	Data     string // what is used after each record: "i:used" where it changed, space-separated
}

// burnDown draws the run's burn-down from the query's budget after each
// of its records, or returns nil when the query had no limits.
func burnDown(r *run) *chart {
	active := counters(r)
	if len(active) == 0 {
		return nil
	}
	n := len(r.slots)
	c := newChart(n, r.limitsOf().thresholds)
	for i := range r.slots {
		x := c.x(i, n)
		for _, s := range active {
			s.used = s.of(&r.slots[i].level)
			s.record(i, n)
			s.plot(c, x)
		}
	}
	for _, s := range active {
		s.finish()
		c.Lines = append(c.Lines, &line{
			Resource: s.resource, Label: s.label, Points: s.points.String(),
			Left: pct(max(s.left(), 0)), Exceeded: s.used > s.limit, Used: s.usedText(), Data: s.data.String(),
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

// started is a run's limits and thresholds: its own run_started
// record's, or else its query's.
type started struct {
	limits     recorder.RunLimits
	thresholds *recorder.Thresholds
}

func (r *run) limitsOf() started {
	for _, x := range []*run{r, r.Query} {
		if x != nil && x.started != nil {
			return started{x.started.Limits, x.started.Thresholds}
		}
	}
	return started{}
}

// counters returns a counter for each resource the run's query limits.
func counters(r *run) []*counter {
	l := r.limitsOf().limits
	series := []*counter{
		{resource: "tokens", label: "tokens", limit: l.MaxTokens, of: func(v *level) int64 { return v.tokens }},
		{resource: "model_calls", label: "model calls", limit: l.MaxModelCalls, of: func(v *level) int64 { return int64(v.modelCalls) }},
		{resource: "tool_calls", label: "tool calls", limit: l.MaxToolCalls, of: func(v *level) int64 { return int64(v.toolCalls) }},
	}
	if start, deadline := timeSpan(r, l); deadline.After(start) {
		series = append(series, &counter{resource: "time", label: "time", limit: int64(deadline.Sub(start)), of: func(v *level) int64 {
			if v.at == 0 {
				return 0
			}
			return int64(v.time().Sub(start))
		}})
	}
	active := series[:0]
	for _, s := range series {
		if s.limit > 0 {
			active = append(active, s)
		}
	}
	return active
}

// timeSpan is when the run's query started, its first record, and when it
// had to end: its timeout after that, or else its deadline; the deadline
// is zero when it had neither.
func timeSpan(r *run, l recorder.RunLimits) (start, deadline time.Time) {
	q := r.Query
	if q == nil {
		q = r
	}
	start = q.firstTime()
	switch {
	case start.IsZero():
		return start, time.Time{}
	case l.Timeout > 0:
		return start, start.Add(l.Timeout)
	}
	return start, l.Deadline
}

// firstTime is the time of the first record of the query r is the root
// of, or the zero time.
func (r *run) firstTime() time.Time {
	v := level{at: r.queryFirst}
	return v.time()
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

// counter follows one resource of a query's budget through a run's
// records.
type counter struct {
	resource, label string
	limit, used     int64
	of              func(*level) int64 // what the query had used after a record

	points, data strings.Builder
	dataLast     int64 // the last figure in data
	plotted      bool
	// colX and colY are the column being drawn and its level so far;
	// level is the level drawn last, and wroteX the last x written.
	colX, colY, level, wroteX int
}

func (s *counter) left() float64 {
	return 1 - float64(s.used)/float64(s.limit)
}

// maxDataRecords bounds the records of a run whose chart gives the exact
// figures behind its lines; a longer run's chart gives none, which keeps
// the page of a long run small.
const maxDataRecords = 10_000

// record adds what is used after record i of n to the counter's data, the
// exact figures behind the line: "i:used" for each record where it
// changed, and for the first. The time, which changes at every record,
// is left out.
func (s *counter) record(i, n int) {
	if n > maxDataRecords || s.resource == "time" || i > 0 && s.used == s.dataLast {
		return
	}
	if i > 0 {
		s.data.WriteByte(' ')
	}
	s.dataLast = s.used
	s.data.WriteString(strconv.Itoa(i))
	s.data.WriteByte(':')
	s.data.WriteString(strconv.FormatInt(s.used, 10))
}

// usedText says how much of the limit is used at the end: "3,080 of
// 20,000", or seconds for the time.
func (s *counter) usedText() string {
	if s.resource == "time" {
		return duration(time.Duration(s.used)) + " of " + duration(time.Duration(s.limit))
	}
	return observer.FormatCount(s.used) + " of " + observer.FormatCount(s.limit)
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
