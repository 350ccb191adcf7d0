package simulate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/google/uuid"

	"github.com/lookout-go/lookout/internal/msgtext"
	"github.com/lookout-go/lookout/session"
)

// Runner plays scenarios against targets.
//
// UserModel plays the user and is required. Ranker nil means NewRanker on
// UserModel, so a scripted user model also receives ranking requests; set a
// Ranker of its own to keep scripts simple. Policy nil means DefaultPolicy.
// Clock nil means time.Now. UserContextTurns (default 2) and
// RankContextTurns (default 1) say how many recent turns the user model and
// the ranker see.
//
// Retry says how the calls to the user model, the ranker and the judge are
// retried on transient failures; nil means the default Retry, NoRetry
// disables it. CallTimeout, when positive, bounds each attempt; an attempt
// that runs out of it is transient, and retried. ModelNames labels the
// models in Result.Usage.
//
// A Runner is safe for concurrent use when its models, ranker and policy
// are: Run keeps all per-run state on its own stack.
type Runner struct {
	UserModel        model.BaseChatModel
	Ranker           Ranker
	Policy           Policy
	Clock            func() time.Time
	UserContextTurns int
	RankContextTurns int
	Retry            *Retry
	CallTimeout      time.Duration
	ModelNames       ModelNames
	// Judge scores scenarios' Criteria; nil means NewJudge on UserModel.
	Judge Judge
}

func (r *Runner) retry() *Retry {
	if r.Retry != nil {
		return r.Retry
	}
	return &defaultRetry
}

// defaultRetry is the Retry of a Runner without one.
var defaultRetry Retry

func (r *Runner) userContextTurns() int {
	if r.UserContextTurns > 0 {
		return r.UserContextTurns
	}
	return 2
}

func (r *Runner) rankContextTurns() int {
	if r.RankContextTurns > 0 {
		return r.RankContextTurns
	}
	return 1
}

// Run plays sc against target until a stop, and returns the result.
//
// Each turn: select a step (start, then preconditions in graph order, then
// the ranker, else none), stop with StopAgentLoop if that step would be
// chosen more than LoopLimit times in a row, generate the user message, let
// the target respond, update step states and goals, then ask the policy.
//
// Invalid input returns a nil Result and an error (ErrInvalidScenario,
// ErrNoUserModel, ErrNoTarget). Otherwise the Result is always non-nil; the
// error is non-nil only when the run stopped with StopError, and is then a
// *RunError saying whether the agent or the simulator failed.
func (r *Runner) Run(ctx context.Context, sc *Scenario, target Target) (*Result, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	if r == nil || r.UserModel == nil {
		return nil, ErrNoUserModel
	}
	if target == nil {
		return nil, ErrNoTarget
	}
	ru := newRun(r, sc, target)
	return ru.play(ctx)
}

type run struct {
	r       *Runner
	sc      *Scenario
	target  Target
	ranker  Ranker
	policy  Policy
	now     func() time.Time
	res     *Result
	steps   []StepState // graph order
	index   map[string]int
	started []time.Time // first attempt per step
	history []*schema.Message
	goals   []GoalResult
	// degraded counts the turns that went on without a step because the
	// ranker failed and the scenario degrades.
	degraded int
}

func newRun(r *Runner, sc *Scenario, target Target) *run {
	ru := &run{r: r, sc: sc, target: target, ranker: r.Ranker, policy: r.Policy, now: r.Clock}
	ru.setDefaults(r)
	ru.res = &Result{ConversationID: conversationID(sc), Scenario: sc}
	ru.initSteps()
	ru.goals = make([]GoalResult, len(sc.Goals))
	for i, g := range sc.Goals {
		ru.goals[i] = GoalResult{Name: g.Name, Turn: -1}
	}
	return ru
}

// setDefaults fills in the ranker, policy and clock the Runner r leaves
// unset.
func (ru *run) setDefaults(r *Runner) {
	if ru.ranker == nil {
		ru.ranker = NewRanker(r.UserModel)
	}
	if ru.policy == nil {
		ru.policy = DefaultPolicy{}
	}
	if ru.now == nil {
		ru.now = time.Now
	}
}

// conversationID is the scenario's ConversationID, or a new UUID when it
// has none.
func conversationID(sc *Scenario) string {
	if sc.ConversationID != "" {
		return sc.ConversationID
	}
	return uuid.NewString()
}

// initSteps sets every step of the scenario idle as of now, and indexes
// the steps by id.
func (ru *run) initSteps() {
	steps := ru.sc.steps()
	t0 := ru.now()
	ru.steps = make([]StepState, len(steps))
	ru.started = make([]time.Time, len(steps))
	ru.index = make(map[string]int, len(steps))
	for i, st := range steps {
		ru.steps[i] = StepState{StepID: st.ID, Status: StatusIdle, UpdatedAt: t0}
		ru.index[st.ID] = i
	}
}

// state snapshots the run for checks and policies.
func (ru *run) state() Progress {
	m := make(map[string]StepState, len(ru.steps))
	for _, s := range ru.steps {
		m[s.StepID] = s
	}
	return Progress{Scenario: ru.sc, Traces: ru.res.Traces, Steps: m, Goals: slices.Clone(ru.goals)}
}

// play plays turns until one of them ends the run.
func (ru *run) play(ctx context.Context) (*Result, error) {
	for turn := 0; ; turn++ {
		if res, err := ru.turn(ctx, turn); res != nil {
			return res, err
		}
	}
}

// turn plays one turn: it chooses the step, writes the user message and
// sends it to the target. It returns a nil Result while the run goes on,
// and the run's Result, with its error, once the turn has ended it.
func (ru *run) turn(ctx context.Context, turn int) (*Result, error) {
	if err := ctx.Err(); err != nil {
		return ru.fail(SideSimulator, turn, "run", err)
	}
	sel, step, res, err := ru.chooseStep(ctx, turn)
	if res != nil {
		return res, err
	}
	ts := ru.now()
	user, err := ru.userTurn(ctx, turn, step)
	if err != nil {
		return ru.fail(ru.sideOf(ctx, err, SideSimulator), turn, "user", err)
	}
	if ru.sc.stopsConversation(user) {
		return ru.stop(ctx, turn, StopUser, "")
	}
	if err := ru.exchange(ctx, turn, sel, step, user, ts); err != nil {
		return ru.respondFailed(ctx, turn, err)
	}
	return ru.afterTurn(ctx, turn, step)
}

// chooseStep selects the turn's step, and ends the run when the selection
// fails or the step would be chosen once too often in a row. Like turn, it
// returns a nil Result while the run goes on.
func (ru *run) chooseStep(ctx context.Context, turn int) (Selection, *Step, *Result, error) {
	sel, step, err := ru.selectStep(ctx, turn)
	if rf, ok := err.(*rankFailure); ok {
		res, err := ru.fail(ru.sideOf(ctx, rf.err, SideRanker), turn, "rank", rf.err)
		return sel, step, res, err
	}
	if err != nil {
		res, err := ru.fail(SideSimulator, turn, "precondition", err)
		return sel, step, res, err
	}
	if step != nil && ru.looping(step.ID) {
		res, err := ru.stop(ctx, turn, StopAgentLoop, fmt.Sprintf("step %q would be chosen more than %d times in a row", step.ID, ru.sc.loopLimit()))
		return sel, step, res, err
	}
	return sel, step, nil, nil
}

// afterTurn judges the turn just played on step and ends the run when the
// policy or the turn limit says so. Like turn, it returns a nil Result
// while the run goes on.
func (ru *run) afterTurn(ctx context.Context, turn int, step *Step) (*Result, error) {
	v, stage, err := ru.judge(ctx, turn, step)
	if err != nil {
		return ru.fail(SideSimulator, turn, stage, err)
	}
	if v.Stop {
		return ru.policyStopped(ctx, turn, v)
	}
	if len(ru.res.Traces) >= ru.sc.maxTurns() {
		return ru.stop(ctx, turn, StopMaxTurns, "")
	}
	return nil, nil
}

// exchange sends the user message to the target and records the turn,
// which began at ts, with what the target answered, even when it failed.
// The attempt on the step counts from here: a turn whose user message was
// never written was not spent on the step.
func (ru *run) exchange(ctx context.Context, turn int, sel Selection, step *Step, user *schema.Message, ts time.Time) error {
	stepID := ""
	if step != nil {
		stepID = step.ID
		ru.attempt(step.ID, ts)
	}
	hist := append(ru.history, user)
	// The agent's runs learn which conversation and turn they are, so that
	// their recordings form one conversation.
	tctx := session.WithConversation(ctx, session.Conversation{ID: ru.res.ConversationID, Turn: turn})
	in := &interrupts{policy: ru.sc.Interrupts}
	out, err := respond(context.WithValue(tctx, interruptsKey{}, in), ru.target, hist[:len(hist):len(hist)])
	out = compact(out)
	ru.noteAgent(out)
	ru.res.Traces = append(ru.res.Traces, StepTrace{
		Turn: turn, User: user, Agent: out, Timestamp: ts, StepID: stepID, Selection: sel, Interrupts: in.seen,
	})
	ru.res.ToolCalls = appendToolCalls(ru.res.ToolCalls, turn, out)
	if err != nil {
		return err
	}
	ru.history = append(hist, out...)
	return nil
}

// respondFailed ends the run after the target failed to respond. A
// cancelled run is the caller's doing, not the agent's, and a provider's
// transient failure is the infrastructure's.
func (ru *run) respondFailed(ctx context.Context, turn int, err error) (*Result, error) {
	cerr := ctx.Err()
	if cerr == nil {
		return ru.fail(ru.sideOf(ctx, err, SideAgent), turn, "respond", err)
	}
	if !errors.Is(err, cerr) {
		err = fmt.Errorf("%w: %w", cerr, err)
	}
	return ru.fail(SideSimulator, turn, "respond", err)
}

// judge updates the steps and goals after a turn and asks the policy
// whether the run goes on. On an error it also names the stage that
// failed.
func (ru *run) judge(ctx context.Context, turn int, step *Step) (Verdict, string, error) {
	if err := ru.settle(ctx, step); err != nil {
		return Verdict{}, "satisfaction", err
	}
	if err := ru.checkGoals(ctx, turn); err != nil {
		return Verdict{}, "goal", err
	}
	v, err := evaluate(ctx, ru.policy, ru.state())
	if err != nil {
		return Verdict{}, "policy", err
	}
	return v, "", nil
}

// policyStopped ends the run as the policy's verdict v says. A verdict
// without a reason is a policy violation.
func (ru *run) policyStopped(ctx context.Context, turn int, v Verdict) (*Result, error) {
	switch v.Reason {
	case "":
		return ru.stop(ctx, turn, StopPolicyViolation, v.Note)
	case StopError:
		// A StopError run always returns a *RunError.
		return ru.fail(SideSimulator, turn, "policy", policyStop(v.Note))
	}
	return ru.stop(ctx, turn, v.Reason, v.Note)
}

// compact drops nil messages a target may return.
func compact(msgs []*schema.Message) []*schema.Message {
	out := msgs[:0:0]
	for _, m := range msgs {
		if m != nil {
			out = append(out, m)
		}
	}
	return out
}

// looping reports whether choosing id again would make it the choice of
// more than LoopLimit consecutive turns.
func (ru *run) looping(id string) bool {
	n := 0
	for i := len(ru.res.Traces) - 1; i >= 0 && ru.res.Traces[i].StepID == id; i-- {
		n++
	}
	return n >= ru.sc.loopLimit()
}

// attempt counts a turn spent on the step, which began at now.
func (ru *run) attempt(id string, now time.Time) {
	i := ru.index[id]
	s := &ru.steps[i]
	s.Attempts++
	s.Status = StatusInProgress
	s.UpdatedAt = now
	// Counted by attempts, not by a zero time: a fake clock may well start
	// at time.Time{}.
	if s.Attempts == 1 {
		ru.started[i] = now
	}
}

func (ru *run) setStatus(i int, st Status) {
	if ru.steps[i].Status != st {
		ru.steps[i].Status = st
		ru.steps[i].UpdatedAt = ru.now()
	}
}

// selectStep chooses the step for this turn.
func (ru *run) selectStep(ctx context.Context, turn int) (Selection, *Step, error) {
	steps := ru.sc.steps()
	if len(steps) == 0 {
		return Selection{Method: MethodNone}, nil, nil
	}
	eligible, err := ru.eligible(ctx, ru.state())
	if err != nil {
		return Selection{}, nil, err
	}
	if start := ru.startStep(turn, eligible); start >= 0 {
		return Selection{Method: MethodStart}, &steps[start], nil
	}
	gated, cands := toRank(steps, eligible)
	if gated >= 0 {
		return Selection{Method: MethodPreconditions}, &steps[gated], nil
	}
	if len(cands) == 0 {
		return Selection{Method: MethodNone}, nil, nil
	}
	sel, best, err := ru.bestOf(ctx, steps, eligible, cands)
	return sel, stepAt(steps, best), err
}

// stepAt returns the step at index i, or nil when i is -1.
func stepAt(steps []Step, i int) *Step {
	if i < 0 {
		return nil
	}
	return &steps[i]
}

// startStep returns the index of the graph's start step when this is the
// first turn and the start step is eligible, or -1.
func (ru *run) startStep(turn int, eligible []bool) int {
	start := ru.sc.Graph.Start
	if turn != 0 || start == "" || !eligible[ru.index[start]] {
		return -1
	}
	return ru.index[start]
}

// bestOf ranks the candidates and returns the selection with the index
// of the best eligible step, or -1 when no step scored above
// RankThreshold. A failed ranking fails the turn with a *rankFailure,
// unless the scenario degrades: the turn then goes on without a step, and
// the selection records the error and the degradation.
func (ru *run) bestOf(ctx context.Context, steps []Step, eligible []bool, cands []Step) (Selection, int, error) {
	sel, err := ru.rankSteps(ctx, cands)
	if err != nil {
		if ru.sc.OnRankerFailure != RankerDegrade || ctx.Err() != nil {
			return sel, -1, &rankFailure{err}
		}
		sel.Degraded = true
		ru.degraded++
		return sel, -1, nil
	}
	best := bestRanked(steps, eligible, sel.Candidates)
	if best >= 0 {
		sel.Method = MethodRanked
	}
	return sel, best, nil
}

// rankFailure is a ranking that failed the turn.
type rankFailure struct{ err error }

func (f *rankFailure) Error() string { return f.err.Error() }

// sideOf is the side to blame for err, which a call made for side failed
// with: the caller's when ctx has ended, the infrastructure's when err is
// a transient failure that remained after retries, else side.
func (ru *run) sideOf(ctx context.Context, err error, side Side) Side {
	switch {
	case ctx.Err() != nil:
		return SideSimulator
	case ru.r.retry().transient(err):
		return SideInfrastructure
	}
	return side
}

// toRank returns the first eligible step that has preconditions, which
// is chosen without ranking, or -1 and the eligible steps to rank.
func toRank(steps []Step, eligible []bool) (int, []Step) {
	var cands []Step
	for i := range steps {
		if !eligible[i] {
			continue
		}
		if len(steps[i].Preconditions) > 0 {
			return i, nil
		}
		cands = append(cands, steps[i])
	}
	return -1, cands
}

// rankSteps asks the ranker to score the candidates, given the latest
// turns. A ranking that fails, or that scores no candidate usably, is
// kept in the selection as its RankError, and returned.
func (ru *run) rankSteps(ctx context.Context, cands []Step) (Selection, error) {
	traces := ru.res.Traces
	if n := ru.r.rankContextTurns(); len(traces) > n {
		traces = traces[len(traces)-n:]
	}
	in := RankInput{Goal: ru.sc.Goal, Persona: ru.sc.Persona, Steps: cands, Traces: traces}
	var ranked []Candidate
	err := ru.call(ctx, RoleRanker, func(ctx context.Context) (err error) {
		ranked, err = rank(ctx, ru.ranker, in)
		return err
	})
	ranked, uerr := usableScores(ranked, cands)
	if err == nil {
		err = uerr
	}
	sel := Selection{Method: MethodNone, Candidates: ranked}
	if err != nil {
		sel.RankError = err.Error()
	}
	return sel, err
}

// bestRanked returns the eligible step, in graph order, that scores
// highest above RankThreshold, or -1 when none does.
func bestRanked(steps []Step, eligible []bool, ranked []Candidate) int {
	best, bestScore := -1, RankThreshold
	for i := range steps {
		if !eligible[i] {
			continue
		}
		for _, c := range ranked {
			if c.StepID == steps[i].ID && c.Score > bestScore {
				best, bestScore = i, c.Score
			}
		}
	}
	return best
}

// eligible evaluates preconditions of every unfinished step and reports
// which steps may be selected. Custom checks run in parallel; a step whose
// step-satisfied preconditions already fail skips its custom ones.
func (ru *run) eligible(ctx context.Context, st Progress) ([]bool, error) {
	steps := ru.sc.steps()
	ok, checks := ru.stepPreconditions(steps, st)
	if len(checks) > 0 {
		passed, err := runChecks(ctx, checks, steps, st)
		if err != nil {
			return nil, err
		}
		for k, c := range checks {
			if !passed[k] {
				ok[c.step] = false
			}
		}
	}
	ru.updateStatuses(ok)
	return ok, nil
}

// check is a custom precondition of a step, by the step's index.
type check struct {
	step int
	name string
	fn   CheckFunc
}

// stepPreconditions reports which unfinished steps have every step
// precondition satisfied, and lists the custom checks of those steps.
func (ru *run) stepPreconditions(steps []Step, st Progress) ([]bool, []check) {
	ok := make([]bool, len(steps))
	var checks []check
	for i, s := range steps {
		if ru.steps[i].Status.finished() || !stepsSatisfied(s, st) {
			continue
		}
		ok[i] = true
		for _, p := range s.Preconditions {
			if p.Check != nil {
				checks = append(checks, check{step: i, name: p.Name, fn: p.Check})
			}
		}
	}
	return ok, checks
}

// stepsSatisfied reports whether every step a step waits for is
// satisfied.
func stepsSatisfied(s Step, st Progress) bool {
	for _, p := range s.Preconditions {
		if p.Step != "" && !st.Satisfied(p.Step) {
			return false
		}
	}
	return true
}

// runChecks runs the checks in parallel and reports which passed, or the
// errors they failed with, joined. The first check to fail cancels the
// others. Their context.Canceled errors are the runner's doing, not the
// caller's, and are left out so that errors.Is(err, context.Canceled)
// keeps meaning that the caller cancelled.
func runChecks(ctx context.Context, checks []check, steps []Step, st Progress) ([]bool, error) {
	results := make([]bool, len(checks))
	errs := make([]error, len(checks))
	cctx, cancel := context.WithCancelCause(ctx)
	var first atomic.Int64
	first.Store(-1)
	var wg sync.WaitGroup
	for k, c := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[k], errs[k] = safeCheck(cctx, c.fn, st)
			if errs[k] != nil && first.CompareAndSwap(-1, int64(k)) {
				cancel(errSiblingFailed)
			}
		}()
	}
	wg.Wait()
	cancel(nil)
	siblingsCancelled := ctx.Err() == nil && errors.Is(context.Cause(cctx), errSiblingFailed)
	return results, checkErrors(checks, steps, errs, int(first.Load()), siblingsCancelled)
}

// checkErrors joins the errors of the checks, each naming its step and
// precondition. When the first failure, the check at first, cancelled its
// siblings, their context.Canceled errors are left out.
func checkErrors(checks []check, steps []Step, errs []error, first int, siblingsCancelled bool) error {
	var all []error
	for k, c := range checks {
		if errs[k] != nil && (k == first || !siblingsCancelled || !errors.Is(errs[k], context.Canceled)) {
			all = append(all, fmt.Errorf("step %q precondition %q: %w", steps[c.step].ID, c.name, errs[k]))
		}
	}
	return errors.Join(all...)
}

// updateStatuses marks the steps that are neither finished nor in
// progress idle when they are eligible (ok) and blocked when not.
func (ru *run) updateStatuses(ok []bool) {
	for i := range ok {
		switch s := ru.steps[i].Status; {
		case s.finished() || s == StatusInProgress:
		case ok[i]:
			ru.setStatus(i, StatusIdle)
		default:
			ru.setStatus(i, StatusBlocked)
		}
	}
}

// policyStop is the cause recorded when a policy stops a run with
// StopError.
func policyStop(note string) error {
	if note == "" {
		return ErrPolicyStop
	}
	return fmt.Errorf("%w: %s", ErrPolicyStop, note)
}

// errSiblingFailed is the cause with which the runner cancels the custom
// preconditions of a turn once one of them has failed.
var errSiblingFailed = errors.New("simulate: another precondition failed")

// usableScores keeps the candidates that score a step the ranker was
// offered with a finite number in [0, 1], one per step with its best score,
// the rules the default ranker applies when it reads a model's answer.
// Out-of-range scores could otherwise win the selection, NaN or infinite
// ones would make the run's artifacts impossible to encode as JSON, and
// steps that were not offered (unknown, finished or waiting for their
// preconditions) were never candidates. A ranking with candidates but none
// usable is an ErrBadRanking.
func usableScores(cs []Candidate, offered []Step) ([]Candidate, error) {
	if len(cs) == 0 {
		return cs, nil
	}
	out := bestUsable(cs, offered)
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no candidate scores an offered step with a number in [0, 1]", ErrBadRanking)
	}
	return out, nil
}

// bestUsable keeps, in the order first seen, the best candidate with a
// score in [0, 1] for each offered step.
func bestUsable(cs []Candidate, offered []Step) []Candidate {
	// at maps an offered step id to its candidate's index in out, or -1.
	at := offeredIndex(offered)
	var out []Candidate
	for _, c := range cs {
		i, ok := at[c.StepID]
		switch {
		case !ok || !inUnit(c.Score):
		case i < 0:
			at[c.StepID] = len(out)
			out = append(out, c)
		case c.Score > out[i].Score:
			out[i] = c
		}
	}
	return out
}

// offeredIndex maps the id of each offered step to -1, for usableScores to
// replace with the index of the step's candidate.
func offeredIndex(offered []Step) map[string]int {
	at := make(map[string]int, len(offered))
	for _, s := range offered {
		at[s.ID] = -1
	}
	return at
}

// inUnit reports whether score is a number in [0, 1]; NaN is not.
func inUnit(score float64) bool {
	return score >= 0 && score <= 1
}

// settle updates step states after a turn: the attempted step is checked
// with its own check or the default heuristic; other unfinished steps with
// a custom check are checked too, since an agent may do more than asked.
// Steps out of attempts or time are failed.
func (ru *run) settle(ctx context.Context, attempted *Step) error {
	st := ru.state()
	steps := ru.sc.steps()
	now := ru.now()
	for i := range steps {
		if ru.steps[i].Status.finished() {
			continue
		}
		done, err := satisfied(ctx, &steps[i], attempted, st)
		if err != nil {
			return err
		}
		switch {
		case done:
			ru.setStatus(i, StatusSatisfied)
		case ru.outOfBudget(i, &steps[i], now):
			ru.setStatus(i, StatusFailed)
		}
	}
	return nil
}

// satisfied reports whether step s is done after the turn in st: by its
// own check when it has one, which may pass on any turn, or else by the
// default heuristic, which only the attempted step can pass.
func satisfied(ctx context.Context, s, attempted *Step, st Progress) (bool, error) {
	if s.Satisfied != nil {
		ok, err := safeCheck(ctx, s.Satisfied, st)
		if err != nil {
			return false, fmt.Errorf("step %q: %w", s.ID, err)
		}
		return ok, nil
	}
	return attempted != nil && attempted.ID == s.ID && answered(st.Traces[len(st.Traces)-1]), nil
}

// outOfBudget reports whether step s, the i-th, is in progress but has
// used up its attempts or its time by now, so it has failed. Steps not
// in progress spend neither.
func (ru *run) outOfBudget(i int, s *Step, now time.Time) bool {
	if ru.steps[i].Status != StatusInProgress {
		return false
	}
	outOfAttempts := s.MaxAttempts > 0 && ru.steps[i].Attempts >= s.MaxAttempts
	outOfTime := s.Timeout > 0 && now.Sub(ru.started[i]) >= s.Timeout
	return outOfAttempts || outOfTime
}

// answered is the default satisfaction heuristic: the agent's last message
// in the turn is an assistant message with text and no pending tool calls.
func answered(t StepTrace) bool {
	if len(t.Agent) == 0 {
		return false
	}
	last := t.Agent[len(t.Agent)-1]
	return last.Role == schema.Assistant && len(last.ToolCalls) == 0 && strings.TrimSpace(msgtext.Of(last)) != ""
}

func (ru *run) checkGoals(ctx context.Context, turn int) error {
	if len(ru.goals) == 0 {
		return nil
	}
	ev := Evidence{ToolCalls: ru.res.ToolCalls, Traces: ru.res.Traces}
	for i, g := range ru.sc.Goals {
		if ru.goals[i].Met {
			continue
		}
		ok, err := safeGoal(ctx, g, ev)
		if err != nil {
			ru.goals[i].Error = err.Error()
			return fmt.Errorf("goal %q: %w", g.Name, err)
		}
		if ok {
			ru.goals[i].Met, ru.goals[i].Turn = true, turn
		}
	}
	return nil
}

// stop ends the run for reason, in turn, once the judge, if the scenario
// has criteria, has scored the conversation.
func (ru *run) stop(ctx context.Context, turn int, reason StopReason, note string) (*Result, error) {
	e := End{Reason: reason}
	if len(ru.sc.Criteria) > 0 {
		crit, err := ru.judgeRun(ctx)
		if err != nil {
			return ru.fail(ru.sideOf(ctx, err, SideSimulator), turn, "judge", err)
		}
		e.Criteria = crit
	}
	ru.end(e, note)
	return ru.res, nil
}

func (ru *run) fail(side Side, turn int, op string, err error) (*Result, error) {
	re := &RunError{Side: side, Turn: turn, Op: op, Err: err}
	ru.end(End{Reason: StopError, Error: err.Error(), ErrorSide: side, ErrorOp: op}, "")
	return ru.res, re
}

// end finishes the run: never-attempted steps are skipped, and the End is
// stored on the result and on the last trace.
func (ru *run) end(e End, note string) {
	ru.skipUnattempted()
	grade(&e, ru.state())
	e.Turns = len(ru.res.Traces)
	e.Goals = append([]GoalResult(nil), ru.goals...)
	e.DegradedTurns = ru.degraded
	ru.res.Steps = append([]StepState(nil), ru.steps...)
	e.Summary = summarize(ru.res.ConversationID, e, ru.res.Steps, note)
	ru.res.End = e
	if n := len(ru.res.Traces); n > 0 {
		// States handed out earlier share the traces' array; the End goes
		// on a copy so that they never change.
		last := e
		ru.res.Traces = slices.Clone(ru.res.Traces)
		ru.res.Traces[n-1].End = &last
	}
}

// skipUnattempted marks the steps that were never attempted, idle or
// blocked, skipped.
func (ru *run) skipUnattempted() {
	for i := range ru.steps {
		if s := ru.steps[i].Status; s == StatusIdle || s == StatusBlocked {
			ru.setStatus(i, StatusSkipped)
		}
	}
}

// grade sets whether the run that ended as e completed, with its goal
// reached in st, and passed, with every criterion too; when the user
// stopped the run, it also lists the goals left unmet.
func grade(e *End, st Progress) {
	e.Completed = (e.Reason == StopGoalReached || e.Reason == StopUser) && st.GoalReached()
	e.Passed = e.Completed
	for _, c := range e.Criteria {
		e.Passed = e.Passed && c.Passed
	}
	if e.Reason == StopUser {
		e.UnmetGoals = unmetGoals(st)
	}
}

// summarize describes how the run ended, in a line, then its steps and
// goals, one line each when there are any.
func summarize(id string, e End, steps []StepState, note string) string {
	var b strings.Builder
	writeOutcome(&b, id, e)
	if e.DegradedTurns > 0 {
		fmt.Fprintf(&b, " The ranker failed in %s, played without a step.", count(e.DegradedTurns, "turn"))
	}
	if note != "" {
		fmt.Fprintf(&b, " %s.", strings.TrimSuffix(note, "."))
	}
	if len(steps) > 0 {
		fmt.Fprintf(&b, "\nSteps: %s.", joinEach(steps, stepSummary))
	}
	if len(e.Goals) > 0 {
		fmt.Fprintf(&b, "\nGoals: %s.", joinEach(e.Goals, goalSummary))
	}
	return b.String()
}

// writeOutcome writes to b the start of summarize's description: how the
// run ended, the error and unmet goals it ended with, and the verdict on
// each criterion.
func writeOutcome(b *strings.Builder, id string, e End) {
	fmt.Fprintf(b, "%s: stopped with %s after %s; goal %s.", id, e.Reason, count(e.Turns, "turn"), completion[e.Completed])
	if e.Error != "" {
		fmt.Fprintf(b, " The %s failed: %s.", e.ErrorSide, e.Error)
	}
	if len(e.UnmetGoals) > 0 {
		fmt.Fprintf(b, " The user stopped the conversation with unmet goals: %s.", strings.Join(e.UnmetGoals, ", "))
	}
	for _, c := range e.Criteria {
		fmt.Fprintf(b, "\nCriterion %q %s (%.2f): %s", c.Criterion, passFail[c.Passed], c.Score, c.Reason)
	}
}

// completion words whether the goal was completed, for summarize.
var completion = map[bool]string{true: "completed", false: "not completed"}

// passFail words whether a criterion passed, for summarize.
var passFail = map[bool]string{true: "passed", false: "failed"}

// count words n of a thing, "1 turn" or "2 turns".
func count(n int, thing string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, thing)
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// joinEach describes each of xs with describe, and joins them with commas.
func joinEach[T any](xs []T, describe func(T) string) string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = describe(x)
	}
	return strings.Join(out, ", ")
}

// stepSummary describes a step's state and, once it was tried, its
// attempts.
func stepSummary(s StepState) string {
	if s.Attempts <= 0 {
		return fmt.Sprintf("%s %s", s.StepID, s.Status)
	}
	return fmt.Sprintf("%s %s (%s)", s.StepID, s.Status, count(s.Attempts, "attempt"))
}

// goalSummary describes whether a goal was met, and in which turn.
func goalSummary(g GoalResult) string {
	if g.Met {
		return fmt.Sprintf("%s met in turn %d", g.Name, g.Turn)
	}
	return fmt.Sprintf("%s not met", g.Name)
}

func safeCheck(ctx context.Context, fn CheckFunc, st Progress) (ok bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			ok, err = false, fmt.Errorf("%w: %v", ErrPanicked, p)
		}
	}()
	return fn(ctx, st)
}

func safeGoal(ctx context.Context, g Goal, ev Evidence) (ok bool, err error) {
	defer func() {
		if p := recover(); p != nil {
			ok, err = false, fmt.Errorf("%w: %v", ErrPanicked, p)
		}
	}()
	return g.Met(ctx, ev)
}

func evaluate(ctx context.Context, p Policy, st Progress) (v Verdict, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = Verdict{}, fmt.Errorf("%w: policy: %v", ErrPanicked, r)
		}
	}()
	return p.Evaluate(ctx, st)
}

func rank(ctx context.Context, r Ranker, in RankInput) (cs []Candidate, err error) {
	defer func() {
		if p := recover(); p != nil {
			cs, err = nil, fmt.Errorf("%w: %w: ranker: %v", ErrBadRanking, ErrPanicked, p)
		}
	}()
	return r.Rank(ctx, in)
}

func respond(ctx context.Context, t Target, history []*schema.Message) (out []*schema.Message, err error) {
	defer func() {
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("%w: target: %v", ErrPanicked, p)
		}
	}()
	return t.Respond(ctx, history)
}
