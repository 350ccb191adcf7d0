package simulate

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"time"

	"github.com/cloudwego/eino/components/model"
	"github.com/cloudwego/eino/schema"
	"github.com/google/uuid"

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
	// CacheDir, when set, is a folder that keeps the replies of the user
	// model and of the NewRanker and NewJudge models, by conversation id,
	// role and request, so that a run of the same scenario, with the same
	// conversation id, against an agent that answers the same, makes no
	// call to those models and writes the same artifacts (with a fixed
	// Clock). Rankers and judges of other kinds are not cached. A
	// scenario without a ConversationID gets a new one each run, and so
	// never hits the cache; a batch gives each job its own.
	CacheDir string
	// KeepSecrets turns off the redaction of what the runs' results
	// write (WriteArtifacts, Result.WriteJSONL, a batch's files), which
	// otherwise replaces secrets as the recorder's built-in redactor,
	// recorder.Secrets, does, as recorder.Options.KeepSecrets does for a
	// recording.
	KeepSecrets bool
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
	user    model.BaseChatModel
	ranker  Ranker
	judger  Judge
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
	// errorTool names the tool whose failure ended the run.
	errorTool string
	// verdict is the judge's verdict that stopped the run, if it did.
	verdict []CriterionResult
	// stopMessage is the user's message that stopped the run, if one did.
	stopMessage string
}

func newRun(r *Runner, sc *Scenario, target Target) *run {
	ru := &run{r: r, sc: sc, target: target, ranker: r.Ranker, judger: r.Judge, policy: r.Policy, now: r.Clock}
	ru.res = &Result{ConversationID: conversationID(sc), Scenario: sc, keepSecrets: r.KeepSecrets}
	ru.setDefaults(r)
	ru.initSteps()
	ru.goals = make([]GoalResult, len(sc.Goals))
	for i, g := range sc.Goals {
		ru.goals[i] = GoalResult{Name: g.Name, Turn: -1}
	}
	return ru
}

// setDefaults fills in the ranker, judge, policy and clock the Runner r
// leaves unset, and puts the models in the cache, if r has one.
func (ru *run) setDefaults(r *Runner) {
	if ru.ranker == nil {
		ru.ranker = NewRanker(r.UserModel)
	}
	if ru.judger == nil {
		ru.judger = NewJudge(r.UserModel)
	}
	id := ru.res.ConversationID
	ru.user = cacheModel(r.UserModel, r.CacheDir, id, RoleUser)
	ru.ranker = cachedRanker(ru.ranker, r.CacheDir, id)
	ru.judger = cachedJudge(ru.judger, r.CacheDir, id)
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
		ru.stopMessage = user.Content
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
	failed, err := ru.judgeTurn(ctx)
	if err != nil {
		return ru.fail(ru.sideOf(ctx, err, SideSimulator), turn, "judge", err)
	}
	if failed {
		return ru.stop(ctx, turn, StopJudge, "")
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
	ac := &agentCalls{}
	tctx = context.WithValue(context.WithValue(tctx, interruptsKey{}, in), agentCallsKey{}, ac)
	out, err := respond(tctx, ru.target, hist[:len(hist):len(hist)])
	out = compact(out)
	ru.noteAgent(out, ac)
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
// cancelled run is the caller's doing, not the agent's; a failure while a
// tool's call was under way is the tool's, transient or not; another
// transient failure is the infrastructure's: the agent's model provider's.
func (ru *run) respondFailed(ctx context.Context, turn int, err error) (*Result, error) {
	cerr := ctx.Err()
	if cerr == nil {
		if tool, ok := failedTool(err, ru.res.Traces[len(ru.res.Traces)-1]); ok {
			ru.errorTool = tool
			return ru.fail(SideTool, turn, "respond", err)
		}
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

// policyStop is the cause recorded when a policy stops a run with
// StopError.
func policyStop(note string) error {
	if note == "" {
		return ErrPolicyStop
	}
	return fmt.Errorf("%w: %s", ErrPolicyStop, note)
}

// invokeFailure is how Eino's ToolsNode words a tool's error that ends the
// agent's run.
var invokeFailure = regexp.MustCompile(`failed to invoke tool\[name:([^\s\]]+)`)

// failedTool names the tool whose failure err, which ended the turn t,
// is, when it is one: the tool Eino's ToolsNode names in the error, else
// the first call of the turn that has no result, since the agent's model
// is not called again while a call is under way. An interrupt the
// scenario left unanswered is no tool's failure.
func failedTool(err error, t StepTrace) (string, bool) {
	if slices.ContainsFunc(t.Interrupts, func(i Interruption) bool { return !i.Answered }) {
		return "", false
	}
	if m := invokeFailure.FindStringSubmatch(err.Error()); m != nil {
		return m[1], true
	}
	out := t.Agent
	answered := map[string]bool{}
	for _, m := range out {
		if m.Role == schema.Tool {
			answered[m.ToolCallID] = true
		}
	}
	for _, m := range out {
		for _, tc := range m.ToolCalls {
			if !answered[tc.ID] {
				return tc.Function.Name, true
			}
		}
	}
	return "", false
}
