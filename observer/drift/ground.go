package drift

import (
	"bytes"
	"math/bits"
	"slices"

	"github.com/lookout-go/lookout/observer/internal/scan"
)

// offGround says why a call is clearly outside the task's ground, whatever
// its scope: work that no task needs unless it says so.
type offGround uint8

const (
	// searchesRoot is a search of the whole filesystem from its root (find
	// /, grep -r … /, locate): the task's files are somewhere known, so
	// the search looks for something that is not.
	searchesRoot offGround = iota + 1
	// managesAccounts adds, changes or removes the system's user accounts
	// or groups (useradd, passwd, groupadd), which a task asks for by name.
	managesAccounts
	// managesServices queries or changes the system's services
	// (systemctl, service), which a task asks for by name.
	managesServices
)

// groundCommand is a command that is clearly off the task's ground, and
// the kind of work it does; a search is off it only when it searches from
// the root.
type groundCommand struct {
	name string
	kind offGround
}

// groundCommands lists the commands off the task's ground. A call keeps
// the position of the first it runs, plus one.
var groundCommands = [...]groundCommand{
	{"find", searchesRoot}, {"grep", searchesRoot}, {"egrep", searchesRoot}, {"fgrep", searchesRoot},
	{"rg", searchesRoot}, {"ag", searchesRoot}, {"ack", searchesRoot}, {"ls", searchesRoot}, {"tree", searchesRoot},
	{"locate", searchesRoot}, {"plocate", searchesRoot}, {"mlocate", searchesRoot}, {"slocate", searchesRoot},

	{"useradd", managesAccounts}, {"adduser", managesAccounts}, {"usermod", managesAccounts},
	{"userdel", managesAccounts}, {"deluser", managesAccounts}, {"groupadd", managesAccounts},
	{"groupmod", managesAccounts}, {"groupdel", managesAccounts}, {"addgroup", managesAccounts},
	{"delgroup", managesAccounts}, {"gpasswd", managesAccounts}, {"passwd", managesAccounts},
	{"chpasswd", managesAccounts}, {"chage", managesAccounts}, {"chsh", managesAccounts},
	{"newusers", managesAccounts}, {"visudo", managesAccounts}, {"vipw", managesAccounts},

	{"systemctl", managesServices}, {"service", managesServices}, {"rc-service", managesServices},
	{"rc-update", managesServices}, {"update-rc.d", managesServices}, {"initctl", managesServices},
	{"supervisorctl", managesServices}, {"launchctl", managesServices},
}

// What a command's name says of the command, besides its position plus
// one in groundCommands.
const (
	// runsNext is a prefix that runs the command that follows it.
	runsNext = 255 - iota
	// makesArgs makes the files or directories its arguments name.
	makesArgs
	// changesDir is cd.
	changesDir
)

// commandRoles maps the names of groundCommands to their position plus
// one, and those of the commands that run the next, make their arguments
// or change directory to what they do: one lookup tells it all.
var commandRoles = func() *scan.WordSet[uint8] {
	m := map[string]uint8{"touch": makesArgs, "mkdir": makesArgs, "cd": changesDir}
	for i, c := range groundCommands {
		m[c.name] = uint8(i + 1)
	}
	for _, p := range []string{"sudo", "env", "nohup", "time", "exec", "command", "nice", "timeout", "doas", "xargs", "builtin"} {
		m[p] = runsNext
	}
	return scan.NewWordSet(m)
}()

// groundMentions lists, for each kind of off-ground work, the words with
// which a task asks for it: a task that says any of them, in any case, has
// that work on its ground. The commands themselves count too.
var groundMentions = [...][]string{
	searchesRoot:    {"entire filesystem", "whole filesystem", "entire file system", "whole file system", "anywhere on the system"},
	managesAccounts: {"account", "create user", "create a user", "create the user", "add a user", "add user", "new user", "system user", "unix user", "linux user", "sudoers", "user group"},
	managesServices: {"service", "daemon", "systemd", "init script"},
}

// groundDescriptions says what each kind of off-ground work does.
var groundDescriptions = [...]string{
	searchesRoot:    "searches the whole filesystem from its root, not the task's own files",
	managesAccounts: "manages the system's user accounts, which the task does not ask for",
	managesServices: "manages the system's services, which the task does not ask for",
}

// searchFromRoot reports whether the search command name, with args,
// searches the filesystem from its root.
func searchFromRoot(name string, args [][]byte) bool {
	switch name {
	case "locate", "plocate", "mlocate", "slocate":
		return true
	case "find":
		return findFromRoot(args)
	}
	// The others search from "/" when they are recursive: always, or with
	// the option that makes them so.
	recursive := name == "rg" || name == "ag" || name == "ack" || name == "tree"
	flags := "rR"
	if name == "ls" {
		flags = "R"
	}
	root := false
	for _, a := range args {
		a = unquote(a)
		switch {
		case string(a) == "--recursive" || string(a) == "--dereference-recursive":
			recursive = true
		case len(a) > 1 && a[0] == '-' && a[1] != '-':
			recursive = recursive || bytes.ContainsAny(a, flags)
		case isRoot(a):
			root = true
		}
	}
	return recursive && root
}

// findFromRoot reports whether find, with args, starts from the root:
// its start points come before the expression, after its options -H, -L
// and -P.
func findFromRoot(args [][]byte) bool {
	for _, a := range args {
		switch a = unquote(a); {
		case len(a) == 2 && a[0] == '-' && (a[1] == 'H' || a[1] == 'L' || a[1] == 'P'):
		case len(a) == 0 || a[0] == '-' || a[0] == '(' || a[0] == '!':
			return false
		case isRoot(a):
			return true
		}
	}
	return false
}

// isRoot reports the filesystem's root, or everything in it.
func isRoot(a []byte) bool {
	return string(a) == "/" || string(a) == "/*" || string(a) == "/."
}

// unquote strips the quotes around a shell word.
func unquote(w []byte) []byte {
	for len(w) > 0 && (w[0] == '"' || w[0] == '\'') {
		w = w[1:]
	}
	for len(w) > 0 && (w[len(w)-1] == '"' || w[len(w)-1] == '\'') {
		w = w[:len(w)-1]
	}
	return w
}

// baseName returns a command's name without its directory.
func baseName(w []byte) []byte {
	w = unquote(w)
	return w[bytes.LastIndexByte(w, '/')+1:]
}

// isDigit reports an ASCII digit.
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isAssignment reports a shell variable assignment, NAME=value, that may
// come before a command. Most words show they are none at their first
// byte that no name has.
func isAssignment(w []byte) bool {
	for i, c := range w {
		switch {
		case c == '=':
			return i > 0
		case !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && isDigit(c)):
			return false
		}
	}
	return false
}

// maxMentionText bounds how much of the prompt is searched for the words
// that ask for off-ground work.
const maxMentionText = 32 << 10

// offGround reports whether the call c does work off the task's ground
// that the task does not ask for.
func (st *driftState) offGround(c *driftCall) bool {
	if c.ground == plantedAt {
		return !st.taskGives(c)
	}
	return c.ground != 0 && !st.asksFor(c.ground)
}

// loweredPrompt returns the start of the task's prompt, its ASCII letters
// lower-cased (what it is searched for is ASCII), once needed.
func (st *driftState) loweredPrompt() string {
	if st.lowerPrompt == "" {
		st.lowerPrompt = string(appendLower(nil, st.taskPrompt[:min(len(st.taskPrompt), maxMentionText)]))
	}
	return st.lowerPrompt
}

// asksFor reports whether the task asks for the work of the off-ground
// command at (as a call keeps it): its declared scope is the whole
// filesystem, or its prompt says one of the words for the work or, but
// for a search, names the command. The answers for every command are
// worked out together, in one reading of the prompt, and kept until the
// task changes.
func (st *driftState) asksFor(at uint8) bool {
	if st.asks[at-1] == 0 {
		st.readAsks()
	}
	return st.asks[at-1] == 1
}

// readAsks sets st.asks for every off-ground command.
func (st *driftState) readAsks() {
	prompt := st.taskPrompt[:min(len(st.taskPrompt), maxMentionText)]
	var said [len(groundCommands)]bool
	var kinds [len(groundMentions)]bool
	for i := 0; i < len(prompt); {
		if !scan.IsWordByte(prompt[i]) {
			i++
			continue
		}
		// A word starts here: the words asked for start words too, and
		// are tried where its first two bytes are theirs.
		for m := askWordsAt(prompt, i); m != 0; m &= m - 1 {
			if w := askWords[bits.TrailingZeros64(m)]; hasLowerPrefix(prompt[i:], w.text) {
				if w.command > 0 {
					said[w.command-1] = true
				} else {
					kinds[w.kind] = true
				}
			}
		}
		i += 1 + scan.RunOf(prompt[i+1:], scan.IsWordByte)
	}
	root := slices.Contains(st.declared, "/")
	for i, c := range groundCommands {
		asks := said[i] || kinds[c.kind] || c.kind == searchesRoot && root
		st.asks[i] = 2
		if asks {
			st.asks[i] = 1
		}
	}
}

// askWord is a word with which a task asks for off-ground work: the
// name of a command (its position plus one) or a word for a kind of work.
type askWord struct {
	text    string
	command uint8
	kind    offGround
}

// askWords are the names of the off-ground commands, but for searches,
// which name themselves in many a task ("find the file"), and the words
// of groundMentions, each found where a word of the prompt starts;
// askFirst and askSecond hold the set of them, bit k for askWords[k],
// with each byte first and second.
var askWords, askFirst, askSecond = func() ([]askWord, [256]uint64, [256]uint64) {
	var words []askWord
	for i, c := range groundCommands {
		if c.kind != searchesRoot {
			words = append(words, askWord{text: c.name, command: uint8(i + 1)})
		}
	}
	for kind, ws := range groundMentions {
		for _, w := range ws {
			words = append(words, askWord{text: w, kind: offGround(kind)})
		}
	}
	if len(words) > 64 {
		panic("drift: more ask words than a set holds")
	}
	var first, second [256]uint64
	for k, w := range words {
		first[w.text[0]] |= 1 << k
		second[w.text[1]] |= 1 << k
	}
	return words, first, second
}()

// askWordsAt returns the set of askWords that may start at prompt[i]: those
// whose first two bytes its first two are, in lower case.
func askWordsAt(prompt string, i int) uint64 {
	if i+1 >= len(prompt) {
		return 0
	}
	return askFirst[lowerByte(prompt[i])] & askSecond[lowerByte(prompt[i+1])]
}

// hasLowerPrefix reports whether s starts with the lower-case ASCII word
// w, in any case.
func hasLowerPrefix(s, w string) bool {
	if len(s) < len(w) {
		return false
	}
	for i := range len(w) {
		if lowerByte(s[i]) != w[i] {
			return false
		}
	}
	return true
}

// lowerByte lower-cases an ASCII letter.
func lowerByte(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
