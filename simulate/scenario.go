package simulate

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Defaults used when the matching Scenario field is zero.
const (
	DefaultMaxTurns  = 10
	DefaultLoopLimit = 3
)

// Persona is who the simulated user is. Guardrails are rules the user must
// keep to; they are written into the user model's system prompt.
//
// A Persona is a plain value, safe to share between concurrent runs.
type Persona struct {
	Name        string   `json:"name,omitempty"`
	Description string   `json:"description"`
	Guardrails  []string `json:"guardrails,omitempty"`
}

// CheckFunc decides something about the run so far. Preconditions and
// satisfaction checks have this shape. It gets a read-only snapshot and must
// not modify it; preconditions of different steps run concurrently.
type CheckFunc func(ctx context.Context, s Progress) (bool, error)

// Precondition gates a step. Set exactly one of Step (the named step must be
// satisfied) or Check (a custom test, labelled by Name). Build them with
// After and When.
//
// A Precondition is safe for concurrent use when its Check is.
type Precondition struct {
	Step  string
	Name  string
	Check CheckFunc
}

// After is a precondition that holds once the step with the given id is
// satisfied.
func After(stepID string) Precondition { return Precondition{Step: stepID} }

// When is a custom precondition. All custom preconditions of a turn are
// evaluated in parallel.
func When(name string, check CheckFunc) Precondition {
	return Precondition{Name: name, Check: check}
}

// Step is one milestone the simulated user works toward.
//
// MaxAttempts caps how many turns may be spent on the step; 0 means no cap.
// Timeout caps, on the runner's clock, how long the step may stay
// unsatisfied after its first attempt; 0 means no limit. A step that runs out
// of either is marked failed and is not selected again.
//
// Satisfied decides whether the step is done after a turn. When nil, the
// default heuristic applies: the step is satisfied by a turn that attempted
// it and in which the agent's last message is an assistant message with
// text. See the package documentation.
//
// A Step is safe to share between concurrent runs when its functions are.
type Step struct {
	ID            string
	Instruction   string
	Hints         []string
	Preconditions []Precondition
	MaxAttempts   int
	Timeout       time.Duration
	Satisfied     CheckFunc
}

// Graph is an optional plan: steps in graph order, a start step chosen on the
// first turn, and terminal steps whose satisfaction reaches the goal. With no
// Terminals, the goal is reached when every step is satisfied.
//
// A Graph is not modified by runs and is safe to share between concurrent
// runs when its steps are.
type Graph struct {
	Steps     []Step
	Start     string
	Terminals []string
}

// Scenario is one conversation to simulate.
//
// The zero value is not runnable: Goal is required. Zero MaxTurns means
// DefaultMaxTurns; zero LoopLimit means DefaultLoopLimit; an empty
// ConversationID is replaced by a random UUID. Goals, when present, decide
// whether the goal is reached (see Goal).
//
// Runner.Run does not modify the scenario, so one Scenario may be run many
// times concurrently when its functions are safe for that.
type Scenario struct {
	Name           string
	Goal           string
	Persona        Persona
	Graph          *Graph
	MaxTurns       int
	LoopLimit      int
	ConversationID string
	Metadata       map[string]any
	Goals          []Goal
	// OnRankerFailure says what a failed ranking does: fail the run (the
	// zero value, RankerFail) or go on without a step (RankerDegrade).
	OnRankerFailure RankerFailure

	// Opening is the user's first message, sent as written instead of
	// asking the user model. Script holds fixed user messages for chosen
	// turns, by zero-based turn index; Script[0] and Opening are one turn,
	// so only one of them may be set.
	Opening string
	Script  map[int]string
	// StopSignal, when set, lets the simulated user end the conversation:
	// the user model is told to send it, and a user message containing it
	// stops the run with StopUser before it reaches the agent.
	StopSignal string
	// Criteria are natural-language success criteria, scored by the
	// Runner's Judge once the run ends (see End.Criteria, End.Passed). A
	// scenario with criteria but neither Goals nor a Graph is judged on
	// them alone: it passes when they all pass.
	Criteria []string
	// JudgeEveryTurn has the Judge score the Criteria after every turn
	// too, and stop the run with StopJudge as soon as it finds one failed
	// for good (CriterionResult.Final). It costs a judge call a turn.
	JudgeEveryTurn bool
	// Interrupts answers the interrupts the agent raises (human-in-the-loop
	// approvals, questions from tools), by tool name. See AnswerInterrupt.
	Interrupts InterruptPolicy
}

// RankerFailure says what a scenario does when its ranker fails.
//
// A RankerFailure is an immutable string, safe for concurrent use.
type RankerFailure string

const (
	// RankerFail ends the run with StopError and SideRanker (or
	// SideInfrastructure for a provider's failure). It is the default.
	RankerFail RankerFailure = ""
	// RankerDegrade plays the turn without a step; the selection records
	// the error and Degraded, and End.DegradedTurns counts such turns.
	RankerDegrade RankerFailure = "degrade"
)

func (sc *Scenario) maxTurns() int {
	if sc.MaxTurns > 0 {
		return sc.MaxTurns
	}
	return DefaultMaxTurns
}

func (sc *Scenario) loopLimit() int {
	if sc.LoopLimit > 0 {
		return sc.LoopLimit
	}
	return DefaultLoopLimit
}

func (sc *Scenario) steps() []Step {
	if sc.Graph == nil {
		return nil
	}
	return sc.Graph.Steps
}

// Validate reports the first problem that would stop the scenario from
// running, as a *ScenarioError: no goal, negative limits, a goal without Met,
// an empty or duplicate step id, a precondition with both or neither of Step
// and Check, a reference to an unknown step, or After preconditions that form
// a cycle (a step waiting for itself included), since the steps in it, and
// every step waiting for them, could never be selected.
func (sc *Scenario) Validate() error {
	if sc == nil {
		return &ScenarioError{Field: "Scenario", Reason: "nil"}
	}
	if err := sc.validateGoals(); err != nil {
		return err
	}
	if sc.Graph == nil {
		return nil
	}
	return sc.Graph.validate()
}

// validateGoals checks the scenario's goal, its goals and its limits.
func (sc *Scenario) validateGoals() error {
	if sc.Goal == "" {
		return &ScenarioError{Field: "Goal", Reason: "empty"}
	}
	if sc.MaxTurns < 0 {
		return &ScenarioError{Field: "MaxTurns", Reason: "negative"}
	}
	if sc.LoopLimit < 0 {
		return &ScenarioError{Field: "LoopLimit", Reason: "negative"}
	}
	if sc.OnRankerFailure != RankerFail && sc.OnRankerFailure != RankerDegrade {
		return &ScenarioError{Field: "OnRankerFailure", Reason: fmt.Sprintf("unknown value %q", sc.OnRankerFailure)}
	}
	return sc.validateControls()
}

// validateControls checks the scripted messages, the stop signal, the
// criteria, the interrupt answers and the goals' Met functions, in that
// order.
func (sc *Scenario) validateControls() error {
	return firstError(sc.validateScript, sc.validateStopSignal, sc.validateCriteria,
		sc.validateInterrupts, sc.validateGoalFuncs)
}

// firstError runs checks in order and returns the first error one reports.
func firstError(checks ...func() error) error {
	for _, check := range checks {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

// validateScript checks that no scripted message is empty or at a negative
// turn, and that turn 0 is not scripted when Opening is set.
func (sc *Scenario) validateScript() error {
	if _, ok := sc.Script[0]; ok && sc.Opening != "" {
		return &ScenarioError{Field: "Script[0]", Reason: "set, and so is Opening; they are the same turn"}
	}
	for turn, text := range sc.Script {
		if turn < 0 {
			return &ScenarioError{Field: fmt.Sprintf("Script[%d]", turn), Reason: "negative turn"}
		}
		if turn >= sc.maxTurns() {
			return &ScenarioError{Field: fmt.Sprintf("Script[%d]", turn), Reason: fmt.Sprintf("beyond MaxTurns (%d): the run never gets there", sc.maxTurns())}
		}
		if strings.TrimSpace(text) == "" {
			return &ScenarioError{Field: fmt.Sprintf("Script[%d]", turn), Reason: "empty message"}
		}
	}
	return nil
}

// validateStopSignal checks that a stop signal, when set, is not only white
// space.
func (sc *Scenario) validateStopSignal() error {
	if sc.StopSignal != "" && strings.TrimSpace(sc.StopSignal) == "" {
		return &ScenarioError{Field: "StopSignal", Reason: "only white space"}
	}
	return nil
}

// validateCriteria checks that each criterion is non-empty and distinct.
func (sc *Scenario) validateCriteria() error {
	for i, c := range sc.Criteria {
		if strings.TrimSpace(c) == "" {
			return &ScenarioError{Field: fmt.Sprintf("Criteria[%d]", i), Reason: "empty"}
		}
		if slices.Index(sc.Criteria, c) < i {
			return &ScenarioError{Field: fmt.Sprintf("Criteria[%d]", i), Reason: fmt.Sprintf("duplicate criterion %q", c)}
		}
	}
	return nil
}

// validateInterrupts checks that each interrupt answer has a known action.
func (sc *Scenario) validateInterrupts() error {
	for tool, a := range sc.Interrupts {
		switch a.Action {
		case InterruptApprove, InterruptReject, InterruptReply:
		default:
			return &ScenarioError{Field: fmt.Sprintf("Interrupts[%q].Action", tool), Reason: fmt.Sprintf("unknown action %q", a.Action)}
		}
	}
	return nil
}

// validateGoalFuncs checks that every goal has a Met function.
func (sc *Scenario) validateGoalFuncs() error {
	for i, g := range sc.Goals {
		if g.Met == nil {
			return &ScenarioError{Field: fmt.Sprintf("Goals[%d]", i), Reason: "no Met function"}
		}
	}
	return nil
}

// validate checks the graph's steps, then that every step it names is
// one of them, then that its After preconditions form no cycle.
func (g *Graph) validate() error {
	ids, err := g.stepIDs()
	if err != nil {
		return err
	}
	for i, st := range g.Steps {
		for j, p := range st.Preconditions {
			if err := p.validate(fmt.Sprintf("Graph.Steps[%d].Preconditions[%d]", i, j), ids); err != nil {
				return err
			}
		}
	}
	if err := g.validateRefs(ids); err != nil {
		return err
	}
	return g.afterCycle()
}

// stepIDs checks each step on its own and returns the set of their ids,
// which must be non-empty and distinct.
func (g *Graph) stepIDs() (map[string]bool, error) {
	ids := make(map[string]bool, len(g.Steps))
	for i, st := range g.Steps {
		f := fmt.Sprintf("Graph.Steps[%d]", i)
		switch {
		case st.ID == "":
			return nil, &ScenarioError{Field: f + ".ID", Reason: "empty"}
		case ids[st.ID]:
			return nil, &ScenarioError{Field: f + ".ID", Reason: fmt.Sprintf("duplicate id %q", st.ID)}
		case st.MaxAttempts < 0:
			return nil, &ScenarioError{Field: f + ".MaxAttempts", Reason: "negative"}
		case st.Timeout < 0:
			return nil, &ScenarioError{Field: f + ".Timeout", Reason: "negative"}
		}
		ids[st.ID] = true
	}
	return ids, nil
}

// validate checks that a precondition, at field f, sets exactly one of
// Step and Check, and that its Step is one of the graph's ids.
func (p Precondition) validate(f string, ids map[string]bool) error {
	named := p.Step != ""
	if named == (p.Check != nil) {
		reason := "neither Step nor Check set"
		if named {
			reason = "both Step and Check set"
		}
		return &ScenarioError{Field: f, Reason: reason}
	}
	if named && !ids[p.Step] {
		return &ScenarioError{Field: f, Reason: fmt.Sprintf("unknown step %q", p.Step)}
	}
	return nil
}

// validateRefs checks that the start and terminal steps are among ids.
func (g *Graph) validateRefs(ids map[string]bool) error {
	if s := g.Start; s != "" && !ids[s] {
		return &ScenarioError{Field: "Graph.Start", Reason: fmt.Sprintf("unknown step %q", s)}
	}
	for i, t := range g.Terminals {
		if !ids[t] {
			return &ScenarioError{Field: fmt.Sprintf("Graph.Terminals[%d]", i), Reason: fmt.Sprintf("unknown step %q", t)}
		}
	}
	return nil
}

// afterCycle reports the first cycle of After preconditions, searching in
// graph order. A step in such a cycle, or one that waits for it, can never
// become eligible; without cycles every step can, as far as After goes.
func (g *Graph) afterCycle() error {
	f := cycleFinder{g: g, index: make(map[string]int, len(g.Steps)), state: make([]visitState, len(g.Steps))}
	for i, st := range g.Steps {
		f.index[st.ID] = i
	}
	for i := range g.Steps {
		if f.state[i] != visitUnseen {
			continue
		}
		if err := f.visit(i); err != nil {
			return err
		}
	}
	return nil
}

// visitState is how far the search for cycles has got with a step.
type visitState int

const (
	visitUnseen visitState = iota
	visitOnPath
	visitDone
)

// cycleFinder searches a graph's After preconditions depth first. A
// precondition that leads back to a step on the current path closes a
// cycle.
type cycleFinder struct {
	g     *Graph
	index map[string]int // step index by id
	state []visitState   // by step index
	path  []int          // steps being visited; each waits for the next
}

// visit searches the steps that step i waits for, and the steps they wait
// for in turn.
func (f *cycleFinder) visit(i int) error {
	f.state[i] = visitOnPath
	f.path = append(f.path, i)
	for j, p := range f.g.Steps[i].Preconditions {
		if p.Step == "" {
			continue
		}
		if err := f.follow(i, j, p.Step); err != nil {
			return err
		}
	}
	f.path = f.path[:len(f.path)-1]
	f.state[i] = visitDone
	return nil
}

// follow goes on from step i along its j-th precondition, which waits for
// the step with id: into that step when it is unseen, and to an error
// when it is on the path. Steps done were searched before and lead to no
// cycle.
func (f *cycleFinder) follow(i, j int, id string) error {
	k := f.index[id]
	switch f.state[k] {
	case visitUnseen:
		return f.visit(k)
	case visitOnPath:
		return f.cycle(i, j, k, id)
	}
	return nil
}

// cycle reports the cycle that the j-th precondition of step i closes by
// waiting for step k, with id, on the path.
func (f *cycleFinder) cycle(i, j, k int, id string) error {
	field := fmt.Sprintf("Graph.Steps[%d].Preconditions[%d]", i, j)
	if k == i {
		return &ScenarioError{Field: field, Reason: fmt.Sprintf("step %q waits for itself, so it can never be selected", id)}
	}
	var names []string
	for _, s := range f.path[slices.Index(f.path, k):] {
		names = append(names, strconv.Quote(f.g.Steps[s].ID))
	}
	names = append(names, strconv.Quote(id))
	return &ScenarioError{Field: field, Reason: fmt.Sprintf(
		"steps wait for each other in a cycle, so none of them can ever be selected: %s (each waits for the next)",
		strings.Join(names, " -> "))}
}
