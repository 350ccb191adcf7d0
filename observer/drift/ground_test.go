package drift_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/drift"
	"github.com/lookout-go/lookout/session"
)

// run feeds calls through a pipeline of d alone for a task, and returns
// the index of each call after which Drift spoke, with what it said.
func run(t *testing.T, d *drift.Detector, task observer.Task, calls ...observer.ToolCallRecord) map[int64]observer.Assessment {
	t.Helper()
	p, store := newExamplePipeline(d)
	session.ValueOf[observer.Task](store).Seed(task)
	spoke := map[int64]observer.Assessment{}
	for _, c := range calls {
		rec, current := p.AfterToolCall(context.Background(), c)
		if current != nil {
			for _, a := range current.Assessments {
				spoke[rec.CallIndex] = a
			}
		}
	}
	return spoke
}

// shell is a successful call of a shell tool that runs command, its
// arguments written as a model writes them.
func shell(command string) observer.ToolCallRecord {
	var args strings.Builder
	e := json.NewEncoder(&args)
	e.SetEscapeHTML(false)
	if err := e.Encode(map[string]string{"command": command}); err != nil {
		panic(err)
	}
	return observer.ToolCallRecord{ToolName: "bash", Arguments: strings.TrimSpace(args.String()), Result: "ok", Success: true}
}

const evidenceTask = "Summarise the failed logins in /home/user/evidence/auth.log into /home/user/out/report.csv."

// The first calls of a run work on the task's own files; the one after
// them is judged alone.
var ownWork = []observer.ToolCallRecord{
	shell("ls -la /home/user/evidence/"),
	shell("head -n 5 /home/user/evidence/auth.log"),
}

// afterOwnWork runs cmd after the run's own work, and returns when Drift
// spoke.
func afterOwnWork(t *testing.T, cmd string) map[int64]observer.Assessment {
	return run(t, drift.New(), observer.Task{Prompt: evidenceTask}, append(ownWork, shell(cmd))...)
}

func TestDriftSpeaksOnASingleSearchOfTheWholeFilesystem(t *testing.T) {
	for _, cmd := range []string{
		`find / -name "*.log" 2>/dev/null | head -10`,
		"find -L / -name build_dump.json",
		"sudo find / -type f -name '*.gz'",
		"grep -rn 'Failed password' / 2>/dev/null",
		"grep --recursive password /",
		"rg -l password /",
		"ls -laR /",
		"tree /",
		"locate auth.log",
		"cd /home/user/evidence && ls\nfind / -name other.log",
		"ls -la; find / -name x",
		"echo $(find / -name x)",
	} {
		t.Run(cmd, func(t *testing.T) {
			spoke := afterOwnWork(t, cmd)
			require.Contains(t, spoke, int64(3))
			a := spoke[3]
			assert.Equal(t, observer.Info, a.Severity, "a single call is reported at the lowest severity")
			assert.Equal(t, "Your latest call works outside the task.", a.Summary)
			assert.Contains(t, a.Observations[0].Description, "searches the whole filesystem from its root")
		})
	}
}

func TestDriftStaysQuietOnSearchesOfTheTasksOwnGround(t *testing.T) {
	for _, cmd := range []string{
		`find . -name "*.log"`,
		"find /home/user/evidence -name '*.gz'",
		"grep -n root /etc/passwd",
		"grep -rn 'Failed password' /home/user/evidence",
		"grep -r password .",
		"ls -la /",
		"ls -ltr /",
		"ls /",
		"echo 'find / -name x'",
		"cat > search.sh << 'EOF'\nfind / -name x\nuseradd bob\nEOF\nchmod +x search.sh",
		"cat <<EOF > notes.txt\nsystemctl restart nginx\nEOF",
		"python3 -c 'import os; os.system(\"find / -name x\")'",
	} {
		t.Run(cmd, func(t *testing.T) { assert.Empty(t, afterOwnWork(t, cmd)) })
	}
}

func TestDriftSpeaksOnSystemAdministrationTheTaskDoesNotAskFor(t *testing.T) {
	for _, c := range []struct{ cmd, says string }{
		{"useradd -m -s /bin/bash user\nsu - user", "(useradd) manages the system's user accounts"},
		{"sudo /usr/sbin/adduser --disabled-password bob", "(adduser) manages the system's user accounts"},
		{"echo 'bob:secret' | chpasswd", "(chpasswd) manages the system's user accounts"},
		{"systemctl status ci_service 2>/dev/null || echo none", "(systemctl) manages the system's services"},
		{"LANG=C service nginx restart", "(service) manages the system's services"},
	} {
		t.Run(c.cmd, func(t *testing.T) {
			// At the very start of a run, before any work on the task.
			spoke := run(t, drift.New(), observer.Task{Prompt: evidenceTask}, shell(c.cmd))
			require.Contains(t, spoke, int64(1))
			assert.Contains(t, spoke[1].Observations[0].Description, "#1 "+c.says)
			assert.Equal(t, observer.Info, spoke[1].Severity)
		})
	}
}

func TestDriftTakesTheSystemAdministrationATaskAsksFor(t *testing.T) {
	for _, c := range []struct{ prompt, cmd string }{
		{"Create a user account named deploy for the CI runner.", "useradd -m deploy"},
		{"Add bob to the sudoers and set his password with passwd.", "passwd bob"},
		{"Make the nginx service start at boot.", "systemctl enable nginx"},
		{"The report daemon must run under systemd.", "systemctl start report"},
		{"Search the entire filesystem for leftover keys.", "find / -name '*.pem'"},
		{"Users: CREATE USER 'app' in MySQL, then run it as a SERVICE.", "systemctl start app"},
		{"Set up the box (run update-rc.d for the agent).", "update-rc.d agent defaults"},
	} {
		t.Run(c.cmd, func(t *testing.T) {
			assert.Empty(t, run(t, drift.New(), observer.Task{Prompt: c.prompt}, shell(c.cmd)))
		})
	}
	t.Run("a word that only holds one asked for", func(t *testing.T) {
		prompt := "Summarise the microservices' logs in /home/user/evidence/auth.log."
		assert.NotEmpty(t, run(t, drift.New(), observer.Task{Prompt: prompt}, shell("systemctl status app")))
	})
	t.Run("a declared scope of the whole filesystem", func(t *testing.T) {
		assert.Empty(t, run(t, drift.New(), observer.Task{Prompt: evidenceTask, Scope: []string{"/"}}, shell("find / -name x")))
	})
}

func TestDriftEscalatesOffGroundWorkThatGoesOn(t *testing.T) {
	var calls []observer.ToolCallRecord
	for i := range 7 {
		calls = append(calls, shell(fmt.Sprintf("find / -name part%d", i)))
	}
	spoke := run(t, drift.New(), observer.Task{Prompt: evidenceTask}, append(ownWork, calls...)...)
	assert.Equal(t, observer.Info, spoke[3].Severity)
	assert.Equal(t, observer.Caution, spoke[8].Severity, "5 calls after it began")
}

func TestDriftEndsOffGroundEpisodeWhenWorkReturns(t *testing.T) {
	spoke := run(t, drift.New(), observer.Task{Prompt: evidenceTask},
		shell("useradd bob"), shell("cat /home/user/evidence/auth.log"), shell("useradd carol"))
	assert.Equal(t, []int64{1, 3}, keys(spoke))
	assert.Equal(t, observer.Info, spoke[3].Severity, "the second episode starts at the lowest severity again")
}

func keys(m map[int64]observer.Assessment) []int64 {
	var out []int64
	for i := range int64(100) {
		if _, ok := m[i]; ok {
			out = append(out, i)
		}
	}
	return out
}

func TestDriftTakesASearchsNameInThePromptForNoLeaveToSearchEverywhere(t *testing.T) {
	task := observer.Task{Prompt: "Find the failed logins in /home/user/evidence/auth.log and grep them into /home/user/out/report.csv."}
	spoke := run(t, drift.New(), task, shell("find / -name auth.log"))
	assert.Contains(t, spoke, int64(1), "find and grep are how a task says what to look for, not where")
}

func TestDriftTakesWhatAPrefixedCommandMakesIntoScope(t *testing.T) {
	for _, mkdir := range []string{"sudo mkdir -p /srv/report", "LANG=C mkdir /srv/report", "cd /tmp && sudo -n touch /srv/report"} {
		t.Run(mkdir, func(t *testing.T) {
			// After the first calls, whose targets join the scope anyway.
			calls := slices.Repeat([]observer.ToolCallRecord{shell("ls /home/user/evidence")}, 5)
			calls = append(calls, shell(mkdir))
			for i := range 10 {
				calls = append(calls, shell(fmt.Sprintf("cat /srv/report/part%d.txt", i)))
			}
			assert.Empty(t, run(t, drift.New(), observer.Task{Prompt: evidenceTask}, calls...),
				"what a command made after a prefix or an assignment is the agent's own")
		})
	}
}
