package drift

import (
	"path"
	"slices"
	"strings"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/internal/scan"
)

// maxMade bounds the targets the agent made that join the scope.
const maxMade = 256

// workDirKeys name a call's working directory.
var workDirKeys = scan.NewWordSet(map[string]bool{"cwd": true, "workdir": true, "workingdir": true, "workingdirectory": true, "dir": true, "directory": true})

// shellKeys name the arguments that hold shell commands.
var shellKeys = scan.NewWordSet(map[string]bool{"command": true, "cmd": true, "commands": true, "keystrokes": true, "script": true, "shell": true, "bash": true})

// findTargets finds the targets of a call into st.targets and, in the
// same reading of its arguments, what a successful call made (the targets
// of a tool whose name says it writes, a shell redirection, touch or
// mkdir) and the working directory it names, which it adds to what the
// agent made; and the first off-ground command its shell commands run,
// which it returns as a call keeps it.
func (st *driftState) findTargets(rec *observer.ToolCallRecord) (ground uint8) {
	st.shell.found, st.hit = 0, 0
	st.argsMake = rec.Success && len(st.made) < maxMade
	st.targets = st.finder.FindWith(st.targets[:0], rec.Arguments, st)
	if st.argsMake && st.access.Of(rec.ToolName) == scan.WriteAccess {
		for _, t := range st.targets {
			st.addMade(t)
		}
	}
	return st.shell.found
}

// ReadString reads a string argument under the folded key for
// findTargets.
func (st *driftState) ReadString(key []byte, val string) {
	st.readPlanted(key, val)
	if len(val) > maxShellText {
		return
	}
	if workDirKeys.Has(key) {
		if st.argsMake {
			st.addMade(scan.CleanTarget(val))
			st.changeDir(scan.CleanTarget(val))
		}
		return
	}
	sh := &st.shell
	sh.ground = sh.found == 0 && shellKeys.Has(key)
	// A command read for its ground is read for what it makes in the
	// same pass; only other texts are searched first for what makes.
	makes := st.argsMake && (sh.ground || mayMake(val))
	if !sh.ground && !makes {
		return
	}
	sh.makes = makes
	st.text = scan.AppendUnescaped(slices.Grow(st.text[:0], len(val)), val)
	sh.scan(st.text)
}

// maxShellText is the longest argument read for what a shell command
// makes and where it changes directory.
const maxShellText = 4096

// changeDir follows a change of working directory to t, relative to the
// one before unless it is rooted; "-" and "~" reset it.
func (st *driftState) changeDir(t string) {
	switch {
	case t == "" || t == "-" || strings.HasPrefix(t, "~") || strings.HasPrefix(t, "$"):
		st.cwd = ""
	case isRooted(t) || st.cwd == "":
		st.cwd = t
	default:
		st.cwd = joinClean(st.cwd, t)
	}
}

// resolve turns the relative paths among st.targets into paths under the
// working directory, when one is known. An agent names the same files
// again and again: the paths joined under the working directory are
// remembered while it stays the same.
func (st *driftState) resolve() {
	if st.cwd == "" {
		return
	}
	if st.joinedIn != st.cwd || len(st.joined) >= maxJoined {
		clear(st.joined)
		st.joinedIn = st.cwd
	}
	for i, t := range st.targets {
		if !st.finder.IsPath(i) || isRooted(t) {
			continue
		}
		j, ok := st.joined[t]
		if !ok {
			j = joinClean(st.cwd, t)
			if st.joined == nil {
				st.joined = make(map[string]string)
			}
			st.joined[t] = j
		}
		st.targets[i] = j
	}
}

// joinClean returns path.Join(dir, t) for the clean paths dir and t, t
// relative, as targets and working directories are: their concatenation,
// unless t starts with a dot (".." climbs out of dir) or dir is "." or
// empty, where path.Join has more to do.
func joinClean(dir, t string) string {
	switch {
	case dir == "" || dir == "." || t == "" || t[0] == '.':
		return path.Join(dir, t)
	case dir[len(dir)-1] == '/':
		return dir + t
	}
	return dir + "/" + t
}

// maxJoined bounds the paths resolve remembers.
const maxJoined = 256

func (st *driftState) addMade(t string) {
	if t == "" || t == "." || len(st.made) >= maxMade {
		return
	}
	if _, ok := st.madeSet[t]; ok {
		return
	}
	if st.madeSet == nil {
		st.madeSet = make(map[string]struct{})
	}
	st.madeSet[t] = struct{}{}
	if st.made == nil {
		st.made = make([]string, 0, 8) // rather than growing from one
	}
	st.made = append(st.made, t)
}

// mayMake reports whether a shell command has a redirection, touch, mkdir
// or cd in it: whether it need be read for what it makes at all. cmd is a
// JSON string's raw content: a text without a space, a tab or an escape
// has no command with an argument.
func mayMake(cmd string) bool {
	if strings.IndexByte(cmd, '>') >= 0 {
		return true
	}
	if strings.IndexByte(cmd, ' ') < 0 && strings.IndexByte(cmd, '\t') < 0 && strings.IndexByte(cmd, '\\') < 0 {
		return false
	}
	return strings.Contains(cmd, "touch") || strings.Contains(cmd, "mkdir") || strings.Contains(cmd, "cd ")
}
