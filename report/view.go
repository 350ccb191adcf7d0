package report

import (
	"html/template"
	"time"

	"github.com/lookout-go/lookout/recorder"
)

// view is what the page template renders.
type view struct {
	Title   string
	CSP     string
	Style   template.CSS
	Script  template.JS
	Summary summary
	Tree    []treeItem // the root runs and the conversations, in the order they first appear
	// TreeMore are the tree's items past the first treeShown, which the
	// page renders when they are scrolled to; TreeMoreRows counts their
	// runs.
	TreeMore     []treeItem
	TreeMoreRows int
	Runs         []*run // every run, parents before their children, a conversation's turns in order
	Folded       int    // texts cut short, once folded
	// Problems are the runs with problems, in page order, each with what
	// went wrong; ProblemsLeft counts the problems past the list's
	// bound.
	Problems     []*run
	ProblemsLeft int
	Filters      filters

	roots []*run          // the runs no other run started
	convs []*conversation // the conversations of several turns
}

// filters are the values the page can be filtered by.
type filters struct {
	Agents, Tools, Outcomes []string
}

// treeItem is a root run, or a conversation of several.
type treeItem struct {
	Run  *run
	Conv *conversation
}

// conversation is the root runs that share a conversation id: its
// turns, in order, and what they did together.
type conversation struct {
	ID      string
	Anchor  string
	Turns   []*run
	Summary summary

	runs []*run // the turns and the runs they started
}

// summary is the header: all runs together.
type summary struct {
	Runs          int
	Conversations int
	Outcome       string
	Class         string // CSS class of the outcome
	StopReason    string
	Models        string
	Usage         usage
	Duration      string
	Failed        int // tool calls that failed or were refused
	Problems      int // everything that went wrong: failed calls, model errors, budget stops, runs that did not complete
}

// usage is what runs consumed, as the header shows it. Cached,
// CacheWrite and Reasoning are empty when none were reported, and Cost
// when no cost was recorded.
type usage struct {
	Tokens, Prompt, Completion    string
	Cached, CacheWrite, Reasoning string
	Cost                          string
	ModelCalls, ToolCalls         int64
}

// run is one run's section of the page.
type run struct {
	ID           string
	Anchor       string // id of the run's section
	StartedID    string // anchor of run_started, or ""
	Agent        string
	Grouped      *conversation // the conversation the run is a turn of, on the page
	Version      string        // the agent's
	Conversation string        // the conversation's id, for a run that is a turn of one
	Turn         int           // the run's turn in it, counted from 1 (the record counts from 0)
	Parent       *run
	Children     []*run
	Outcome      string
	Class        string
	StopReason   string
	Error        *text
	Models       string
	Usage        usage
	Duration     string
	Limits       string
	Chart        *chart
	Waterfall    *waterfall // of the query, on its root run
	Failed       int        // tool calls that failed or were refused
	Problems     []problem  // what went wrong, in record order, up to the page's bound
	Tools        string     // the names of the tools it called, space-separated
	Query        *run       // the root run of the query it is part of

	opens   *conversation // the conversation whose section starts with this run
	closes  bool          // the run is the last of its conversation's section
	prefix  string        // of the record anchors: "" or the run id and "-"
	index   int32         // in the order runs first appear in the records
	slots   []slot        // a slot for each of its records, in seq order once indexed
	first   time.Time
	last    time.Time
	ended   *recorder.RunEnded
	started *recorder.RunStarted
	// startedSeq and parentSeq are the seqs of the first run_started
	// record and of the first record naming a parent, parentID.
	startedSeq, parentSeq uint64
	parentID              string
	usage                 recorder.RunUsage // from run_ended, or added up from the records
	models                modelSet
	spent                 *spend // what the query used, on a root run that started others
	// queryFirst is the time of the query's first record, on its root
	// run, in Unix nanoseconds.
	queryFirst int64
	spans      []span // the model and tool calls, for the waterfall
	tools      map[string]bool
	issues     int  // problems, listed or not
	oneModel   bool // its model calls name one model at most, which its header names
	est        int  // about how many bytes its section takes, for laying the page out in parts
	// assessed is how each assessment record, by seq, was shown, once a
	// pass over the run has seen every model call.
	assessed map[uint64]assessed
}

// assessed is what a pass over a run learned of one assessment record:
// whether, and where, the model was shown it, and whether its text is the
// one shown there.
type assessed struct {
	note, link string
	same       bool
}

// Entry kinds.
const (
	kindMessage    = "message"
	kindReminder   = "reminder"
	kindAssessment = "assessment"
	kindModel      = "model"
	kindTools      = "tools"
	kindBudget     = "budget"
	kindExtension  = "extension"
	kindAnchor     = "anchor"
	kindEnd        = "end"
	kindInjected   = "injected" // a message Lookout added to a model call's input
)

// An assessment record's Note: whether the model was shown it, when the
// run's model requests say what Lookout added to their inputs.
const (
	assessmentShown   = "shown"
	assessmentUnshown = "unshown"
)

// entry is one item of a run's timeline.
type entry struct {
	Seq    uint64 // of the record that made it
	Kind   string
	ID     string
	Label  string // a message's role, a reminder's tag, an extension's name, an assessment's severity, an outcome, an injected message's kind
	Note   string // the CSS class of an outcome, an injected message's role, whether an assessment was shown
	Link   string // the anchor of where an assessment was shown
	After  int    // an assessment's call index (AfterCallIndex)
	Text   *text
	Model  *modelCall
	Group  *toolGroup
	Budget *recorder.BudgetRecord
	Notes  []recorder.ObserverNote
}

// ref is a link to an entry.
type ref struct{ ID, Label string }

// modelCall is a model request and its response.
type modelCall struct {
	Answered bool
	RespID   string
	Model    string
	Messages int
	Offered  int
	Withheld bool
	Again    []ref // injected messages the call before was given too
	Reply    *text
	Usage    string
	Latency  string
	Finish   string
	Failed   bool
}

// toolGroup is the tool calls run between two model calls, each in the
// lane of the calls it overlaps.
type toolGroup struct {
	Lanes  int
	Calls  []*toolCall
	Extras []*entry // records between the calls: budget charges, extensions
}

// maxLanes bounds the lanes drawn; more overlapping calls share the last.
const maxLanes = 6

// toolCall is a tool_started record and its tool_ended record.
type toolCall struct {
	ID         string
	EndID      string
	Name       string
	CallID     string
	Args       *text
	Result     *text
	Error      *text
	IsError    bool
	Unfinished bool
	Cut        string // what the recorder cut, as it recorded
	Duration   string
	Lane       int
	Control    bool // a control tool's call, not charged

	start, end uint64
	span       int // its span in the run's
}

// text is recorded text, cut to the page's length when it is longer.
type text struct {
	S    string
	More int // bytes folded away
}
