package report

import (
	"strconv"
	"time"

	"github.com/lookout-go/lookout/recorder"
)

// Kinds of span.
const (
	spanModel = 'm'
	spanTool  = 't'
)

// span is a model or tool call's time, for the waterfall.
type span struct {
	kind       byte
	label      string
	start, end time.Time
	failed     bool
}

// span starts a span of kind at the time of the record being added and
// returns its index in the run's spans.
func (t *timeline) span(kind byte, label string) int {
	t.r.spans = append(t.r.spans, span{kind: kind, label: label, start: t.at, end: t.at})
	return len(t.r.spans) - 1
}

// budgetText says what an exceeded budget record says: "tokens, 110 used
// of 100".
func budgetText(p *recorder.BudgetRecord) string {
	return p.Resource + ", " + strconv.FormatInt(p.Used, 10) + " used of " + strconv.FormatInt(p.Limit, 10)
}

// Waterfall geometry, in SVG user units.
const (
	fallWidth = 720
	fallLabel = 140 // the runs' names
	fallRowH  = 16
	fallTop   = 4
	fallAxis  = 18 // the time axis under the rows
	// maxFallRows bounds the rows drawn; the rest are counted.
	maxFallRows = 40
)

// waterfall is a query's runs on one time axis, a row each, with the
// model calls and tool calls each made as bars along it.
type waterfall struct {
	Width, Height int
	PlotX, PlotW  int
	AxisY         int
	Rows          []fallRow
	More          int    // runs not drawn
	Span          string // the time the axis spans
}

// fallRow is one run's row.
type fallRow struct {
	Y, TextY int
	Label    string
	Link     string // the run's section
	Run      fallBar
	Bars     []fallBar
}

// fallBar is a run's or call's bar. Calls too close to be told apart
// share a bar, which says how many it holds.
type fallBar struct {
	X, W  int
	Class string // run, model, tool, failed
	Title string
}

// drawWaterfall draws the waterfall of the query whose root is q and
// whose runs are runs, in page order, or returns nil when its records
// have no times.
func drawWaterfall(q *run, runs []*run) *waterfall {
	start := q.firstTime()
	end := start
	for _, r := range runs {
		if r.last.After(end) {
			end = r.last
		}
	}
	if start.IsZero() || !end.After(start) {
		return nil
	}
	total := end.Sub(start)
	w := &waterfall{Width: fallWidth, PlotX: fallLabel, PlotW: fallWidth - fallLabel - 4, Span: duration(total)}
	x := func(at time.Time) int {
		return w.PlotX + int(int64(w.PlotW)*int64(at.Sub(start))/int64(total))
	}
	for i, r := range runs {
		if i == maxFallRows {
			w.More = len(runs) - i
			break
		}
		y := fallTop + i*fallRowH
		row := fallRow{Y: y + 3, TextY: y + 12, Label: r.Agent, Link: r.Anchor}
		row.Run = bar(x(r.first), x(r.last), "run", r.Agent+" · "+r.Outcome+" · "+r.Duration)
		row.Bars = callBars(r.spans, x)
		w.Rows = append(w.Rows, row)
	}
	w.AxisY = fallTop + len(w.Rows)*fallRowH + 2
	w.Height = w.AxisY + fallAxis
	return w
}

// bar is a bar from x0 to x1, at least a unit wide.
func bar(x0, x1 int, class, title string) fallBar {
	return fallBar{X: x0, W: max(x1-x0, 1), Class: class, Title: title}
}

// callBars draws a run's calls; a call that starts where the bar before
// it of its kind ends, or within it, joins that bar, so that a run of
// many thousand calls draws a few hundred bars.
func callBars(spans []span, x func(time.Time) int) []fallBar {
	var bars []fallBar
	last := map[string]int{} // the index of the last bar of each class
	count := map[int]int{}   // calls in each bar
	for _, s := range spans {
		if s.start.IsZero() {
			continue
		}
		class := "model"
		if s.kind == spanTool {
			class = "tool"
		}
		if s.failed {
			class = "failed"
		}
		x0, x1 := x(s.start), x(s.end)
		if i, ok := last[class]; ok && x0 <= bars[i].X+bars[i].W+1 {
			bars[i].W = max(bars[i].W, x1-bars[i].X, 1)
			count[i]++
			bars[i].Title = strconv.Itoa(count[i]) + " " + class + " calls"
			continue
		}
		last[class] = len(bars)
		count[len(bars)] = 1
		bars = append(bars, bar(x0, x1, class, s.label+" · "+duration(s.end.Sub(s.start))))
	}
	return bars
}
