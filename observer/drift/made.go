package drift

import (
	"path"
	"strings"

	"github.com/lookout-go/lookout/observer"
	"github.com/lookout-go/lookout/observer/internal/scan"
)

// maxMade bounds the targets the agent made that join the scope.
const maxMade = 256

// workDirKeys name a call's working directory.
var workDirKeys = map[string]bool{"cwd": true, "workdir": true, "workingdir": true, "workingdirectory": true, "dir": true, "directory": true}

// shellKeys name the arguments that hold shell commands.
var shellKeys = map[string]bool{"command": true, "cmd": true, "commands": true, "keystrokes": true, "script": true, "shell": true, "bash": true}

// readArgs reads the string arguments of a call: what a successful call
// made (the targets of a tool whose name says it writes, a shell
// redirection, touch or mkdir) and the working directory it names, which
// it adds to what the agent made; and the first off-ground command its
// shell commands run, which it returns as a call keeps it.
func (st *driftState) readArgs(rec *observer.ToolCallRecord) (ground uint8) {
	made := rec.Success && len(st.made) < maxMade
	if made && st.accessOf(rec.ToolName) == scan.WriteAccess {
		for _, t := range st.targets {
			st.addMade(t)
		}
	}
	scan.EachMember(rec.Arguments, func(k, val string, isString bool) bool {
		if !isString || len(val) > maxShellText {
			return true
		}
		st.key = scan.FoldKey(st.key[:0], k)
		if workDirKeys[string(st.key)] {
			if made {
				st.addMade(scan.CleanTarget(val))
				st.changeDir(scan.CleanTarget(val))
			}
			return true
		}
		shell := ground == 0 && shellKeys[string(st.key)]
		makes := made && mayMake(val)
		if !shell && !makes {
			return true
		}
		st.text = scan.AppendUnescaped(st.text[:0], val)
		if shell {
			ground = st.ground.scan(st.text)
		}
		if makes {
			madeByShell(string(st.text), st.addMade, st.changeDir)
		}
		return true
	})
	return ground
}

// accessOf returns what the tool does to its target, as its name says,
// remembering it for the first tools a session calls: the name's words
// cost more to read than a small map costs to look up.
func (st *driftState) accessOf(tool string) scan.Access {
	if a, ok := st.access[tool]; ok {
		return a
	}
	a := scan.ClassifyTool(tool)
	if st.access == nil {
		st.access = make(map[string]scan.Access)
	}
	if len(st.access) < maxToolsClassified {
		st.access[tool] = a
	}
	return a
}

// maxToolsClassified bounds the tools whose access a session remembers.
const maxToolsClassified = 256

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
		st.cwd = path.Join(st.cwd, t)
	}
}

// resolve turns the relative paths among st.targets into paths under the
// working directory, when one is known.
func (st *driftState) resolve() {
	if st.cwd == "" {
		return
	}
	for i, t := range st.targets {
		if st.finder.IsPath(i) && !isRooted(t) {
			st.targets[i] = path.Join(st.cwd, t)
		}
	}
}

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
	st.made = append(st.made, t)
}

// madeByShell calls add for what a shell command writes or works in: the
// target of a redirection (> out.txt, >> log), the arguments of touch and
// mkdir, and the directory of cd.
func madeByShell(cmd string, add, cd func(string)) {
	if !mayMake(cmd) {
		return
	}
	for line := range strings.Lines(cmd) {
		sh := shellWords{start: true, cd: cd}
		for w := range strings.FieldsSeq(line) {
			sh.word(w, add)
		}
	}
}

// mayMake reports whether a shell command has a redirection, touch, mkdir
// or cd in it: whether madeByShell need read its words at all.
func mayMake(cmd string) bool {
	return strings.Contains(cmd, ">") || strings.Contains(cmd, "touch") || strings.Contains(cmd, "mkdir") || strings.Contains(cmd, "cd ")
}

// shellWords follows the words of a shell command line: whether the word
// starts a command, follows a redirection, or is an argument of touch,
// mkdir or cd.
type shellWords struct {
	start, redirect, args bool
	inCd                  bool // the arguments are cd's
	cd                    func(string)
}

// word reads the next word of the line, and calls add for it if it is a
// target.
func (sh *shellWords) word(w string, add func(string)) {
	if sh.redirection(w, add) {
		sh.start = false
		return
	}
	if isShellOperator(w) {
		sh.start, sh.args, sh.inCd = true, false, false
		return
	}
	sh.argument(w, add)
}

// redirection reads w if it is a redirection or the target that follows
// one, and reports whether it was.
func (sh *shellWords) redirection(w string, add func(string)) bool {
	switch {
	case sh.redirect:
		addShellTarget(w, add)
		sh.redirect = false
	case w == ">" || w == ">>":
		sh.redirect, sh.args = true, false
	case w[0] == '>':
		addShellTarget(strings.TrimLeft(w, ">"), add)
		sh.args = false
	default:
		return false
	}
	return true
}

// argument reads a word of a command: its name, which may start the
// arguments of touch, mkdir or cd, or one of those arguments.
func (sh *shellWords) argument(w string, add func(string)) {
	switch {
	case sh.start && isShellMaker(w):
		sh.args, sh.inCd = true, w == "cd"
	case sh.args && w[0] != '-':
		addShellTarget(w, add)
		if sh.inCd {
			addShellTarget(w, sh.cd)
		}
	}
	sh.start = false
}

// isShellMaker reports a command whose arguments it makes or works in.
func isShellMaker(w string) bool {
	return w == "touch" || w == "mkdir" || w == "cd"
}

// addShellTarget adds a word of a command as a target, but not a device.
func addShellTarget(w string, add func(string)) {
	if t := scan.CleanTarget(strings.Trim(w, `"'`)); !strings.HasPrefix(t, "/dev/") {
		add(t)
	}
}

// isShellOperator reports a word that ends one command of a line.
func isShellOperator(w string) bool {
	return w == "&&" || w == "||" || w == ";" || w == "|"
}
