package simulate

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// DoneFile is the marker written last, atomically, into a run's folder once
// the run has finished without error (see Marker). A batch skips runs that
// have it with the job's current fingerprint (see Batch.Fingerprint).
const DoneFile = "done.json"

// LockFile is the file in OutDir that a running batch holds an exclusive
// lock on, so that two batches never write into one OutDir at once. The lock
// belongs to the open file, not to its existence: the operating system
// releases it when the batch returns or its process dies, so a crashed batch
// never blocks the next one. The empty file stays behind.
const LockFile = ".batch.lock"

// Job is one run of a batch: a scenario and a repetition. Index is the
// run's position in the whole batch (scenario index × Repetitions +
// repetition), the same on every machine, so shards never overlap. ID is the
// run's conversation id and the name of its folder.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type Job struct {
	Index         int
	ScenarioIndex int
	Repetition    int
	ID            string
	Scenario      *Scenario // a copy whose ConversationID is ID
}

// JobResult is the outcome of one job. Skipped means a previous batch had
// completed it, with the same fingerprint. End is nil when the job was
// skipped or never ran.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type JobResult struct {
	Job     Job
	Dir     string
	Skipped bool
	End     *End
	Err     error

	fingerprint string // of the job, once its folder was looked at
}

// Report summarises a batch: the jobs of this shard that were run or
// skipped, in index order, and counts. Failed counts jobs with an error.
//
// It is a plain value: safe for concurrent reads, not for concurrent writes.
type Report struct {
	Jobs    []JobResult
	Ran     int
	Skipped int
	Failed  int
	// Stale lists the folders of jobs not in the batch that Run found in
	// OutDir and moved into StaleDir.
	Stale []string
}

// Batch runs many scenarios, each several times, with bounded concurrency.
//
// Every job gets its Runner and Target from Setup when it is set (use it
// when models or targets keep per-conversation state, like scripted ones),
// otherwise the shared Runner and Target, which must then be safe for
// concurrent use.
//
// Zero values: Repetitions 0 means 1; Concurrency 0 means 1; Shards 0 means
// one shard holding every job. Shard is zero-based: job Index belongs to
// shard Index % Shards. OutDir "" keeps artifacts off disk, which also
// disables resuming. Progress nil means os.Stderr.
//
// Progress is drawn as one updating line when the writer is a terminal or
// is not an *os.File at all; a regular file or pipe stays quiet.
//
// OnResult, when set, sees every finished run's full result; it is called
// from worker goroutines, concurrently.
//
// A panic in Setup fails its job with an error wrapping ErrPanicked, as a
// Setup error would. A panic in OnResult is recovered too: the run's result
// and artifacts stand, the panic is joined into the job's error (wrapping
// ErrPanicked), and the job, counted as failed, gets no DoneFile, so a
// resumed batch runs it and calls OnResult for it again.
//
// One OutDir serves one batch at a time: Run holds a lock on its LockFile
// and fails with ErrOutDirInUse while another batch, in this process or
// another, holds it. Shards that run at the same time need an OutDir each.
// The lock uses flock on Unix systems and an exclusive open on Windows; on
// other systems (Solaris, AIX, Plan 9, WebAssembly) it is not enforced.
//
// A Batch must not be modified while Run is running. Run starts its workers
// and waits for all of them before returning.
type Batch struct {
	Scenarios   []*Scenario
	Repetitions int
	Concurrency int
	Shard       int
	Shards      int
	OutDir      string
	Runner      *Runner
	Target      Target
	Setup       func(ctx context.Context, j Job) (*Runner, Target, error)
	Progress    io.Writer
	OnResult    func(j Job, r *Result, err error)
	// Version names what the fingerprint cannot see: the agent's version,
	// a prompt's hash, the options Setup gives its runners. Changing it
	// reruns every job.
	Version string
	// JobTimeout, when positive, bounds each job, its Setup included: a
	// run still going when it runs out stops with StopError on the
	// simulator's side, its error wrapping context.DeadlineExceeded, gets
	// FailedFile and runs again when the batch is resumed.
	JobTimeout time.Duration
}

// Jobs lists the jobs of this shard, in index order. It fails with
// ErrInvalidBatch when two scenarios' jobs would get the same folder,
// including folder names that differ only in case, which macOS and Windows
// treat as one by default.
func (b *Batch) Jobs() ([]Job, error) {
	jobs, _, err := b.plan()
	return jobs, err
}

// plan lists the jobs of this shard, as Jobs does, and the folder names
// of every job of the batch, in every shard.
func (b *Batch) plan() ([]Job, map[string]folderOwner, error) {
	if err := b.checkShape(); err != nil {
		return nil, nil, err
	}
	f := folders{seen: make(map[string]folderOwner), bases: make([]string, len(b.Scenarios))}
	var jobs []Job
	for si, sc := range b.Scenarios {
		if err := sc.Validate(); err != nil {
			return nil, nil, fmt.Errorf("scenario %d: %w", si, err)
		}
		f.bases[si] = scenarioBase(sc, si)
		var err error
		if jobs, err = b.appendJobs(jobs, &f, si); err != nil {
			return nil, nil, err
		}
	}
	return jobs, f.seen, nil
}

// appendJobs appends to jobs the repetitions of scenario si that fall in
// this shard. Every repetition claims its folder in f, in every shard, so
// that all shards find the same clashes.
func (b *Batch) appendJobs(jobs []Job, f *folders, si int) ([]Job, error) {
	shards := max(b.Shards, 1)
	reps := max(b.Repetitions, 1)
	for rep := 0; rep < reps; rep++ {
		id, err := f.claim(si, rep)
		if err != nil {
			return nil, err
		}
		idx := si*reps + rep
		if idx%shards != b.Shard {
			continue
		}
		cp := *b.Scenarios[si]
		cp.ConversationID = id
		jobs = append(jobs, Job{Index: idx, ScenarioIndex: si, Repetition: rep, ID: id, Scenario: &cp})
	}
	return jobs, nil
}

// checkShape checks the batch's shard, counts and scenario list.
func (b *Batch) checkShape() error {
	if err := b.checkShard(); err != nil {
		return err
	}
	if b.Repetitions < 0 || b.Concurrency < 0 {
		return fmt.Errorf("%w: negative repetitions or concurrency", ErrInvalidBatch)
	}
	if len(b.Scenarios) == 0 {
		return fmt.Errorf("%w: no scenarios", ErrInvalidBatch)
	}
	return nil
}

// checkShard checks that the shard is one of the batch's shards.
func (b *Batch) checkShard() error {
	if b.Shards < 0 || b.Shard < 0 || b.Shard >= max(b.Shards, 1) {
		return fmt.Errorf("%w: shard %d of %d", ErrInvalidBatch, b.Shard, b.Shards)
	}
	return nil
}

// scenarioBase is what the folders of a scenario's jobs are named after:
// its conversation id, else its name, else its place in the batch.
func scenarioBase(sc *Scenario, si int) string {
	if sc.ConversationID != "" {
		return sc.ConversationID
	}
	if sc.Name != "" {
		return sc.Name
	}
	return fmt.Sprintf("scenario-%d", si)
}

// folders hands out the job folder names of a batch. seen is keyed by
// the folded folder name: macOS and Windows ignore case by default, so two
// names that differ only in case would share a folder there, and every
// shard must build the same jobs on any system. bases holds each
// scenario's base name, for the errors.
type folders struct {
	seen  map[string]folderOwner
	bases []string
}

type folderOwner struct {
	scenario int
	id       string
}

// claim returns the folder name of repetition rep of scenario si, or
// ErrInvalidBatch when an earlier job has it already. The base is cut, if
// need be, before the suffix is added, so the repetitions of a long name
// stay apart.
func (f *folders) claim(si, rep int) (string, error) {
	suffix := fmt.Sprintf("-r%d", rep)
	id := safeName(f.bases[si], maxNameLen-len(suffix)) + suffix
	key := foldName(id)
	prev, dup := f.seen[key]
	if !dup {
		f.seen[key] = folderOwner{si, id}
		return id, nil
	}
	if prev.id == id {
		return "", fmt.Errorf("%w: scenarios %d (%q) and %d (%q) both run as %q",
			ErrInvalidBatch, prev.scenario, f.bases[prev.scenario], si, f.bases[si], id)
	}
	return "", fmt.Errorf("%w: scenarios %d (%q) and %d (%q) run as %q and %q, one folder on systems that ignore case",
		ErrInvalidBatch, prev.scenario, f.bases[prev.scenario], si, f.bases[si], prev.id, id)
}

// foldName is a folder name as systems that ignore case see it.
func foldName(name string) string { return strings.ToLower(strings.ToUpper(name)) }

// Run runs this shard's jobs and reports on them. Jobs whose folder under
// OutDir holds DoneFile with the job's fingerprint are skipped, so running a
// batch again resumes it; a job whose scenario, options or Lookout version
// changed since runs again. A run that stopped with an error gets
// FailedFile instead and runs again next time. Temporary files that a
// killed batch left in OutDir are removed first, and run folders of jobs
// the batch does not have (of any shard), left by an earlier batch with
// other scenarios or repetitions, are moved into StaleDir, listed in
// Report.Stale and named on Progress, so that a merge of OutDir holds
// only this batch's runs. A job whose DoneFile has its fingerprint but
// another job index, as when scenarios were reordered, runs again.
//
// The error is non-nil, with a nil report, for an invalid batch or an
// OutDir that cannot be created or is in use by another batch
// (ErrOutDirInUse). It is also non-nil when ctx ends before every job ran:
// no job starts once ctx has ended, and the report covers only the jobs that
// started (ran or were skipped) before that. Failures of single runs are in
// the report, not in the error.
func (b *Batch) Run(ctx context.Context) (*Report, error) {
	jobs, all, err := b.plan()
	if err != nil {
		return nil, err
	}
	if b.Setup == nil && (b.Runner == nil || b.Target == nil) {
		return nil, fmt.Errorf("%w: need Setup, or both Runner and Target", ErrInvalidBatch)
	}
	unlock, stale, err := b.claimOutDir(all)
	if err != nil {
		return nil, err
	}
	defer unlock()
	results, ran := b.runJobs(ctx, jobs)
	rep := report(results, ran)
	rep.Stale = stale
	return rep, ctx.Err()
}

// claimOutDir locks OutDir, when the batch has one, removes the temporary
// files a killed batch left there and moves aside the folders of jobs not
// in the batch, whose folder names are the keys of all, folded. unlock
// releases the lock; stale lists the folders moved.
func (b *Batch) claimOutDir(all map[string]folderOwner) (unlock func(), stale []string, err error) {
	if b.OutDir == "" {
		return func() {}, nil, nil
	}
	unlock, err = lockOutDir(b.OutDir)
	if err != nil {
		return nil, nil, err
	}
	if err := removeTemps(b.OutDir); err != nil {
		unlock()
		return nil, nil, fmt.Errorf("simulate: removing temporary files: %w", err)
	}
	stale, err = moveStale(b.OutDir, all)
	if err != nil {
		unlock()
		return nil, nil, fmt.Errorf("simulate: moving aside the runs of jobs not in the batch to %s: %w", filepath.Join(b.OutDir, StaleDir), err)
	}
	if len(stale) > 0 {
		fmt.Fprintf(b.progressWriter(), "simulate: %d run folders in %s belong to no job of this batch; moved to %s: %s\n",
			len(stale), b.OutDir, filepath.Join(b.OutDir, StaleDir), strings.Join(stale, ", "))
	}
	return unlock, stale, nil
}

// progressWriter is where the batch writes its progress and notices.
func (b *Batch) progressWriter() io.Writer {
	if b.Progress == nil {
		return os.Stderr
	}
	return b.Progress
}

// StaleDir is the folder of OutDir into which a batch moves the run
// folders it finds there of jobs it does not have, as when scenarios or
// repetitions were removed since an earlier batch wrote it, so that Merge
// and ReadBatch never count them. Merge and ReadBatch skip it, as every
// folder whose name starts with a dot.
const StaleDir = ".stale"

// moveStale moves the folders in out that are not the folder of a job in
// all, keyed by folded name, into out's StaleDir, and lists their names.
// A name StaleDir holds already gets a numbered suffix.
func moveStale(out string, all map[string]folderOwner) ([]string, error) {
	entries, err := os.ReadDir(out)
	if err != nil {
		return nil, err
	}
	var moved []string
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, ".") {
			continue
		}
		if owner, ok := all[foldName(name)]; ok && owner.id == name {
			continue
		}
		if err := moveAside(out, name); err != nil {
			return moved, err
		}
		moved = append(moved, name)
	}
	return moved, nil
}

// moveAside moves the folder name of out into out's StaleDir, under a
// name not taken there.
func moveAside(out, name string) error {
	dst := filepath.Join(out, StaleDir)
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return err
	}
	to := filepath.Join(dst, name)
	for n := 1; ; n++ {
		if _, err := os.Lstat(to); errors.Is(err, fs.ErrNotExist) {
			break
		}
		to = filepath.Join(dst, fmt.Sprintf("%s.%d", name, n))
	}
	return os.Rename(filepath.Join(out, name), to)
}

// runJobs runs the jobs on Concurrency workers and returns their results,
// with which of them started.
func (b *Batch) runJobs(ctx context.Context, jobs []Job) ([]JobResult, []bool) {
	results := make([]JobResult, len(jobs))
	ran := make([]bool, len(jobs))
	prog := newProgress(b.Progress, len(jobs))

	work := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(max(b.Concurrency, 1), len(jobs)); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				jr, started := b.runJob(ctx, jobs[i])
				if !started {
					continue
				}
				results[i], ran[i] = jr, true
				prog.add(jr)
			}
		}()
	}
	feed(ctx, work, len(jobs))
	close(work)
	wg.Wait()
	prog.finish()
	return results, ran
}

// feed hands the job indexes below n to the workers, in order, until ctx
// ends.
func feed(ctx context.Context, work chan<- int, n int) {
	for i := range n {
		// select picks at random among ready cases, so an ended ctx is
		// checked first: once it has ended, no job is handed out.
		if ctx.Err() != nil {
			return
		}
		select {
		case work <- i:
		case <-ctx.Done():
			return
		}
	}
}

// report counts the results of the jobs that started, listed in job
// order.
func report(results []JobResult, ran []bool) *Report {
	rep := &Report{}
	for i := range results {
		if !ran[i] {
			continue
		}
		r := results[i]
		rep.Jobs = append(rep.Jobs, r)
		switch {
		case r.Skipped:
			rep.Skipped++
		case r.Err != nil:
			rep.Failed++
			rep.Ran++
		default:
			rep.Ran++
		}
	}
	sort.Slice(rep.Jobs, func(i, j int) bool { return rep.Jobs[i].Job.Index < rep.Jobs[j].Job.Index })
	return rep
}

// lockOutDir creates dir and takes the batch lock in it, and returns the
// function that releases it.
func lockOutDir(dir string) (func(), error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	unlock, err := lockFile(filepath.Join(dir, LockFile))
	if errors.Is(err, errLocked) {
		return nil, fmt.Errorf("%w: %s", ErrOutDirInUse, dir)
	}
	if err != nil {
		return nil, fmt.Errorf("simulate: lock %s: %w", dir, err)
	}
	return unlock, nil
}

// errLocked is what lockFile returns when another holder has the lock.
var errLocked = errors.New("locked")

// runJob runs one job. started is false when ctx had ended before the job
// began; the job then did nothing and is left out of the report.
func (b *Batch) runJob(ctx context.Context, j Job) (jr JobResult, started bool) {
	if ctx.Err() != nil {
		return jr, false
	}
	jr.Job = j
	if b.openJobDir(&jr) {
		return jr, true
	}
	if b.JobTimeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, b.JobTimeout)
		defer cancel()
	}
	runner, target, err := b.runnerFor(ctx, j)
	if err != nil {
		jr.Err = err
		return jr, true
	}
	res, err := runner.Run(ctx, j.Scenario, target)
	jr.Err = err
	if res != nil {
		b.finish(&jr, res)
	}
	return jr, true
}

// openJobDir sets the folder and fingerprint of jr's job, when the batch
// has an OutDir, and reports whether the job ends there: skipped because
// it ran before, or failed because its folder could not be prepared.
func (b *Batch) openJobDir(jr *JobResult) bool {
	if b.OutDir == "" {
		return false
	}
	jr.fingerprint = b.Fingerprint(jr.Job)
	dir, done, err := jobDir(b.OutDir, jr.Job, jr.fingerprint)
	jr.Dir, jr.Skipped, jr.Err = dir, done, err
	return done || err != nil
}

// runnerFor returns the runner and the target of job j: the batch's own,
// or those that Setup makes for the job when there is a Setup.
func (b *Batch) runnerFor(ctx context.Context, j Job) (*Runner, Target, error) {
	if b.Setup == nil {
		return b.Runner, b.Target, nil
	}
	runner, target, err := b.setup(ctx, j)
	if err != nil {
		return nil, nil, fmt.Errorf("setup %s: %w", j.ID, err)
	}
	return runner, target, nil
}

// finish records in jr how the job's run ended with res, hands the result
// to OnResult and saves the artifacts in the job's folder, if it has one.
// jr.Err holds the run's error, and gains those of the later stages.
func (b *Batch) finish(jr *JobResult, res *Result) {
	end := res.End
	jr.End = &end
	if b.OnResult != nil {
		if perr := b.onResult(jr.Job, res, jr.Err); perr != nil {
			jr.Err = errors.Join(jr.Err, fmt.Errorf("OnResult %s: %w", jr.Job.ID, perr))
		}
	}
	if jr.Dir != "" {
		jr.Err = b.saveJob(jr, res, end, jr.Err)
	}
}

// jobDir returns the folder of job j under out, and whether it holds
// DoneFile with the fingerprint fp and j's index, so the job ran before
// and is skipped.
// Otherwise the markers of an earlier run go, before the job runs again:
// a batch killed during the new run must not leave the old verdict.
func jobDir(out string, j Job, fp string) (dir string, done bool, err error) {
	dir, err = childDir(out, j.ID)
	if err != nil {
		return "", false, err
	}
	// A folder made now holds no marker to read or remove.
	made, err := mkdirNew(dir)
	if made || err != nil {
		return dir, false, err
	}
	if m, ok := readMarker(dir, DoneFile); ok && m.Fingerprint == fp && m.Index == j.Index {
		return dir, true, nil
	}
	return dir, false, removeMarkers(dir)
}

// removeMarkers removes the markers of an earlier run from its folder dir.
func removeMarkers(dir string) error {
	for _, name := range []string{DoneFile, FailedFile} {
		if err := removeIfExists(filepath.Join(dir, name)); err != nil {
			return err
		}
	}
	return nil
}

// mkdirNew makes the folder dir and reports whether it did; a folder that
// exists already is no error.
func mkdirNew(dir string) (bool, error) {
	err := os.Mkdir(dir, 0o700)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return err == nil, nil
	}
	return false, err
}

// saveJob writes the artifacts of a run into its folder and then the
// marker saying how it ended (end, as the run returned it): DoneFile, which
// skips it next time, when it ended without error (jobErr), else
// FailedFile. It returns jobErr with any error writing them.
func (b *Batch) saveJob(jr *JobResult, res *Result, end End, jobErr error) error {
	if werr := writeArtifactsIn(jr.Dir, res, writeFile); werr != nil {
		return errors.Join(jobErr, werr)
	}
	// The artifacts' entries reach the disk before the marker can.
	if werr := syncDir(jr.Dir); werr != nil {
		return errors.Join(jobErr, werr)
	}
	j := jr.Job
	m := Marker{
		ConversationID: res.ConversationID, Index: j.Index, ScenarioIndex: j.ScenarioIndex, Repetition: j.Repetition,
		Scenario: j.Scenario.Name, Reason: end.Reason, Completed: end.Completed, Passed: end.Passed,
		Fingerprint: jr.fingerprint, LookoutVersion: LookoutVersion(),
	}
	name := DoneFile
	if jobErr != nil {
		name, m.Error, m.ErrorSide = FailedFile, jobErr.Error(), end.ErrorSide
	}
	return errors.Join(jobErr, writeMarker(jr.Dir, name, m, res.redact))
}

// setup calls Setup and turns a panic into an error.
func (b *Batch) setup(ctx context.Context, j Job) (r *Runner, t Target, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, t, err = nil, nil, fmt.Errorf("%w: %v", ErrPanicked, p)
		}
	}()
	return b.Setup(ctx, j)
}

// onResult calls OnResult and turns a panic into an error.
func (b *Batch) onResult(j Job, res *Result, runErr error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", ErrPanicked, p)
		}
	}()
	b.OnResult(j, res, runErr)
	return nil
}

// progress draws "simulate: 12/200 runs (3 skipped, 1 failed)" on one line.
type progress struct {
	mu                    sync.Mutex
	w                     io.Writer
	total, n, skip, fails int
}

func newProgress(w io.Writer, total int) *progress {
	if w == nil {
		w = os.Stderr
	}
	if !showProgress(w) {
		w = nil
	}
	return &progress{w: w, total: total}
}

// showProgress reports whether progress should be drawn on w: always for a
// writer that is not a file, and for a file only when it is a terminal.
func showProgress(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return true
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

func (p *progress) add(r JobResult) {
	if p.w == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if r.Skipped {
		p.skip++
	} else if r.Err != nil {
		p.fails++
	}
	fmt.Fprintf(p.w, "\rsimulate: %d/%d runs (%d skipped, %d failed)", p.n, p.total, p.skip, p.fails)
}

func (p *progress) finish() {
	if p.w == nil || p.n == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	fmt.Fprintln(p.w)
}
