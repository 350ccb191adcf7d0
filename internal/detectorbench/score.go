package detectorbench

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/lookout-go/lookout/observer"
)

// Slack is how many calls before or after a labelled range a detector may
// speak and still count as finding it.
const Slack = 1

// Score counts one detector's results. An episode is a labelled range; a
// false alarm is a run of consecutive calls after which the detector spoke
// outside every labelled range (widened by [Slack]).
type Score struct {
	// TP counts labelled episodes the detector spoke in.
	TP int
	// FP counts false alarms.
	FP int
	// FN counts labelled episodes it stayed quiet through.
	FN int
	// TN counts runs with no label for it in which it stayed quiet.
	TN int
	// Delays holds, for each episode found, how many calls after the
	// episode's first call the detector first spoke (0 when it spoke at
	// or before it).
	Delays []int
	// Calls counts the calls replayed.
	Calls int
}

func (s *Score) add(o Score) {
	s.TP, s.FP, s.FN, s.TN = s.TP+o.TP, s.FP+o.FP, s.FN+o.FN, s.TN+o.TN
	s.Delays = append(s.Delays, o.Delays...)
	s.Calls += o.Calls
}

// Precision is the share of the detector's episodes, found or false, that
// were labelled; 1 when it never spoke.
func (s Score) Precision() float64 { return ratio(s.TP, s.TP+s.FP) }

// Recall is the share of labelled episodes found; 1 when there were none.
func (s Score) Recall() float64 { return ratio(s.TP, s.TP+s.FN) }

// FalseAlarmsPer100 is false alarms per 100 calls replayed.
func (s Score) FalseAlarmsPer100() float64 {
	if s.Calls == 0 {
		return 0
	}
	return 100 * float64(s.FP) / float64(s.Calls)
}

// MedianDelay is the median of [Score.Delays], or -1 when there are none.
func (s Score) MedianDelay() float64 {
	if len(s.Delays) == 0 {
		return -1
	}
	d := slices.Sorted(slices.Values(s.Delays))
	n := len(d)
	if n%2 == 1 {
		return float64(d[n/2])
	}
	return float64(d[n/2-1]+d[n/2]) / 2
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 1
	}
	return float64(a) / float64(b)
}

// span is a labelled range of calls, inclusive.
type span struct{ from, to int64 }

// covers reports whether call i is within sp widened by [Slack].
func (sp span) covers(i int64) bool { return i >= sp.from-Slack && i <= sp.to+Slack }

func parseSpans(labels []string) ([]span, error) {
	out := make([]span, 0, len(labels))
	for _, l := range labels {
		a, b, found := strings.Cut(l, "-")
		if !found {
			b = a
		}
		from, err1 := strconv.ParseInt(strings.TrimSpace(a), 10, 64)
		to, err2 := strconv.ParseInt(strings.TrimSpace(b), 10, 64)
		if err := errors.Join(err1, err2); err != nil || from < 1 || to < from {
			return nil, fmt.Errorf("bad label range %q", l)
		}
		out = append(out, span{from, to})
	}
	return out, nil
}

// ScoreRun scores the calls after which a detector spoke against its
// labels for one run.
func ScoreRun(labels []string, fired []int64) (Score, error) {
	spans, err := parseSpans(labels)
	if err != nil {
		return Score{}, err
	}
	s := Score{FP: falseAlarms(spans, fired)}
	for _, sp := range spans {
		i := slices.IndexFunc(fired, sp.covers)
		if i < 0 {
			s.FN++
			continue
		}
		s.TP++
		s.Delays = append(s.Delays, int(max(0, fired[i]-sp.from)))
	}
	if len(spans) == 0 && len(fired) == 0 {
		s.TN++
	}
	return s, nil
}

// falseAlarms counts the runs of consecutive calls in fired that lie
// outside every span.
func falseAlarms(spans []span, fired []int64) int {
	n := 0
	prev := int64(-1)
	for _, i := range fired {
		inside := slices.ContainsFunc(spans, func(sp span) bool { return sp.covers(i) })
		if !inside && i != prev+1 {
			n++
		}
		if inside {
			prev = -1
		} else {
			prev = i
		}
	}
	return n
}

// Result is what replaying a folder found: the score of each detector, in
// the order of [Detectors], overall and by family, the cost of each call,
// and each run's false alarms and misses.
type Result struct {
	Scores []Score
	// Families lists the families of the cases in the order first seen;
	// ByFamily[f][i] is detector i's score on family f's runs.
	Families []string
	ByFamily map[string][]Score
	// Cost holds, by family, the time the pipeline took after each call:
	// the least over the replays, which a busy machine inflates least.
	Cost map[string][]time.Duration
	// Notes lists, per run, what was wrong: "swe_ctf_eps: Drift spoke
	// after calls [5 6]; labels []".
	Notes []string
}

// Run replays every case once with specs and scores each detector.
func Run(cases []Case, specs func() []observer.Spec) (Result, error) {
	return RunN(cases, specs, 1)
}

// RunN replays every case replays times, each time with a new pipeline of
// specs(), scores each detector on the first and keeps each call's least
// cost.
func RunN(cases []Case, specs func() []observer.Spec, replays int) (Result, error) {
	r := Result{Scores: make([]Score, len(Detectors)), ByFamily: map[string][]Score{}, Cost: map[string][]time.Duration{}}
	for _, c := range cases {
		var first Replayed
		for n := range max(replays, 1) {
			got, err := replay(c, specs())
			if err != nil {
				return Result{}, err
			}
			if n == 0 {
				first = got
				continue
			}
			for i, d := range got.Cost {
				first.Cost[i] = min(first.Cost[i], d)
			}
		}
		if err := r.scoreCase(c, first); err != nil {
			return Result{}, err
		}
	}
	return r, nil
}

// scoreCase adds to r each detector's score on case c, and notes its false
// alarms and misses.
func (r *Result) scoreCase(c Case, got Replayed) error {
	fam := c.Family
	if _, ok := r.ByFamily[fam]; !ok {
		r.Families = append(r.Families, fam)
		r.ByFamily[fam] = make([]Score, len(Detectors))
	}
	r.Cost[fam] = append(r.Cost[fam], got.Cost...)
	for i, d := range Detectors {
		s, err := ScoreRun(c.Labels[d.Label], got.Fired[d.Observer])
		if err != nil {
			return fmt.Errorf("detectorbench: %s: %s: %w", c.ID, d.Label, err)
		}
		s.Calls = len(c.Calls)
		r.Scores[i].add(s)
		r.ByFamily[fam][i].add(s)
		if s.FP > 0 || s.FN > 0 {
			r.Notes = append(r.Notes, fmt.Sprintf("%s: %s spoke after calls %v; labels %v", c.ID, d.Observer, got.Fired[d.Observer], c.Labels[d.Label]))
		}
	}
	return nil
}

// Print writes r as a table, then its notes.
func (r Result) Print(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%-9s %4s %4s %4s %4s\n", "detector", "TP", "FP", "FN", "TN")
	for i, d := range Detectors {
		s := r.Scores[i]
		fmt.Fprintf(&b, "%-9s %4d %4d %4d %4d\n", d.Observer, s.TP, s.FP, s.FN, s.TN)
	}
	for _, n := range r.Notes {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// PrintTable writes, per detector, a Markdown table of its scores by
// family and overall, then the cost per call by family, then the notes.
func (r Result) PrintTable(w io.Writer) error {
	var b strings.Builder
	for i, d := range Detectors {
		fmt.Fprintf(&b, "%s\n\n", d.Observer)
		b.WriteString("| family | calls | episodes | found | false alarms | precision | recall | median delay | false alarms / 100 calls |\n")
		b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
		for _, f := range r.Families {
			writeRow(&b, f, r.ByFamily[f][i])
		}
		writeRow(&b, "all", r.Scores[i])
		b.WriteByte('\n')
	}
	b.WriteString("Cost per call, all observers together (least of the replays)\n\n")
	b.WriteString("| family | calls | median | 99th percentile | most |\n|---|---:|---:|---:|---:|\n")
	var all []time.Duration
	for _, f := range r.Families {
		writeCost(&b, f, r.Cost[f])
		all = append(all, r.Cost[f]...)
	}
	writeCost(&b, "all", all)
	b.WriteByte('\n')
	for _, n := range r.Notes {
		b.WriteString(n)
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeRow(b *strings.Builder, name string, s Score) {
	delay := "–"
	if d := s.MedianDelay(); d >= 0 {
		delay = strconv.FormatFloat(d, 'f', -1, 64)
	}
	fmt.Fprintf(b, "| %s | %d | %d | %d | %d | %.2f | %.2f | %s | %.2f |\n",
		name, s.Calls, s.TP+s.FN, s.TP, s.FP, s.Precision(), s.Recall(), delay, s.FalseAlarmsPer100())
}

func writeCost(b *strings.Builder, name string, cost []time.Duration) {
	if len(cost) == 0 {
		return
	}
	d := slices.Sorted(slices.Values(cost))
	fmt.Fprintf(b, "| %s | %d | %s | %s | %s |\n", name, len(d), micro(Quantile(d, 0.5)), micro(Quantile(d, 0.99)), micro(d[len(d)-1]))
}

// Quantile returns the q-quantile of sorted, by the nearest rank.
func Quantile(sorted []time.Duration, q float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

func micro(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Microsecond), 'f', 1, 64) + " µs"
}
