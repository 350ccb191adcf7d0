package summary

import (
	"cmp"
	"maps"
	"slices"
	"time"
)

// snapshot copies the run's counters into a Run that shares no memory with
// the state.
func (st *runState) snapshot() Run {
	r := st.run
	r.Outcome = cmp.Or(r.Outcome, Unfinished)
	r.Started, r.Ended = st.span()
	if r.Ended.After(r.Started) {
		r.Duration = r.Ended.Sub(r.Started)
	}
	if r.Usage != nil {
		u := *r.Usage
		r.Usage = &u
	}
	r.Exceeded = slices.Clone(r.Exceeded)
	r.Failures = slices.Clone(r.Failures)
	r.BudgetExceeded = maps.Clone(r.BudgetExceeded)
	r.Extensions = maps.Clone(r.Extensions)
	r.UnknownKinds = maps.Clone(r.UnknownKinds)
	r.Assessments.BySeverity = maps.Clone(r.Assessments.BySeverity)

	unfinished := st.open.byTool()
	r.Tools = make([]Tool, 0, len(st.tools))
	for _, t := range st.tools {
		c := *t
		c.Unfinished = unfinished[t.Name]
		r.Tools = append(r.Tools, c)
	}
	r.Assessments.Observers = make([]ObserverAssessments, 0, len(st.observers))
	for _, o := range st.observers {
		c := *o
		c.BySeverity = maps.Clone(o.BySeverity)
		r.Assessments.Observers = append(r.Assessments.Observers, c)
	}
	r.Efficacy = make([]Efficacy, 0, len(st.efficacy))
	for _, e := range st.efficacy {
		r.Efficacy = append(r.Efficacy, *e)
	}
	r.finish()
	return r
}

// span returns when the run started and ended: as its RunStarted and
// RunEnded records say, or else at its first and last record.
func (st *runState) span() (started, ended time.Time) {
	started, ended = st.first, st.last
	if !st.startedAt.IsZero() {
		started = st.startedAt
	}
	if !st.endedAt.IsZero() {
		ended = st.endedAt
	}
	return started, ended
}

// merge adds o's counters to s. Run-level fields (Duration) are left to
// the caller.
func (s *Stats) merge(o *Stats) {
	s.Records += o.Records
	s.UserMessages += o.UserMessages
	s.ModelCalls += o.ModelCalls
	s.ModelCallsWithoutUsage += o.ModelCallsWithoutUsage
	s.Tokens.add(o.Tokens)
	s.ToolCalls += o.ToolCalls
	s.ControlCalls += o.ControlCalls
	s.ToolErrors += o.ToolErrors
	for _, t := range o.Tools {
		x := findOrAdd(&s.Tools, Tool{Name: t.Name}, func(x Tool) bool { return x.Name == t.Name })
		x.MCPServer, x.MCPTool = cmp.Or(x.MCPServer, t.MCPServer), cmp.Or(x.MCPTool, t.MCPTool)
		x.Calls += t.Calls
		x.Errors += t.Errors
		x.Unfinished += t.Unfinished
		x.Duration += t.Duration
		x.Control = x.Control || t.Control
	}
	s.Assessments.Count += o.Assessments.Count
	s.Assessments.BySeverity = addCounts(s.Assessments.BySeverity, o.Assessments.BySeverity)
	for _, oa := range o.Assessments.Observers {
		x := findOrAdd(&s.Assessments.Observers, ObserverAssessments{Observer: oa.Observer},
			func(x ObserverAssessments) bool { return x.Observer == oa.Observer })
		x.Count += oa.Count
		x.BySeverity = addCounts(x.BySeverity, oa.BySeverity)
	}
	s.BudgetExceeded = addCounts(s.BudgetExceeded, o.BudgetExceeded)
	for _, e := range o.Efficacy {
		x := findOrAdd(&s.Efficacy, Efficacy{Observer: e.Observer}, func(x Efficacy) bool { return x.Observer == e.Observer })
		x.Reactions += e.Reactions
		x.ChangedCourse += e.ChangedCourse
		x.WrappedUp += e.WrappedUp
		x.CarriedOn += e.CarriedOn
		x.Shown += e.Shown
	}
	s.MalformedEfficacy += o.MalformedEfficacy
	s.Extensions = addCounts(s.Extensions, o.Extensions)
	s.UnknownKinds = addCounts(s.UnknownKinds, o.UnknownKinds)
}

// findOrAdd returns the first element of *list for which same is true,
// after appending fresh to the list when there is none.
func findOrAdd[T any](list *[]T, fresh T, same func(T) bool) *T {
	i := slices.IndexFunc(*list, same)
	if i < 0 {
		*list = append(*list, fresh)
		i = len(*list) - 1
	}
	return &(*list)[i]
}

// finish sorts the named lists and computes the error rate.
func (s *Stats) finish() {
	s.ErrorRate = rate(s.ToolErrors, s.ToolCalls)
	slices.SortFunc(s.Tools, func(a, b Tool) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(s.Assessments.Observers, func(a, b ObserverAssessments) int { return cmp.Compare(a.Observer, b.Observer) })
	slices.SortFunc(s.Efficacy, func(a, b Efficacy) int { return cmp.Compare(a.Observer, b.Observer) })
	if len(s.Tools) == 0 {
		s.Tools = nil
	}
	s.MCPServers = serversOf(s.Tools)
	if len(s.Assessments.Observers) == 0 {
		s.Assessments.Observers = nil
	}
	if len(s.Efficacy) == 0 {
		s.Efficacy = nil
	}
}

func increment(m map[string]int, key string) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	m[key]++
	return m
}

func addCounts(dst, src map[string]int) map[string]int {
	if len(src) == 0 {
		return dst
	}
	if dst == nil {
		dst = make(map[string]int, len(src))
	}
	for k, v := range src {
		dst[k] += v
	}
	return dst
}

func rate(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return float64(part) / float64(whole)
}

// serversOf groups the tools that an MCP server served by server, sorted
// by name; nil when none was.
func serversOf(tools []Tool) []MCPServer {
	var out []MCPServer
	for _, t := range tools {
		if t.MCPServer == "" {
			continue
		}
		i := slices.IndexFunc(out, func(s MCPServer) bool { return s.Name == t.MCPServer })
		if i < 0 {
			out = append(out, MCPServer{Name: t.MCPServer})
			i = len(out) - 1
		}
		s := &out[i]
		s.Tools = append(s.Tools, t.Name)
		s.Calls += t.Calls
		s.Errors += t.Errors
		s.Duration += t.Duration
	}
	slices.SortFunc(out, func(a, b MCPServer) int { return cmp.Compare(a.Name, b.Name) })
	return out
}
