package drift

import (
	"bytes"
	"unicode/utf8"

	"github.com/lookout-go/lookout/observer/internal/scan"
)

// Classes of the bytes of a shell command line.
const (
	wordByte  = iota
	spaceByte // ends a word
	opByte    // ends a word and the command: ; & | ( ) `
	quoteByte // starts or ends a quoted part of a word
)

// shellBytes classes the bytes of a shell command line.
var shellBytes = func() (t [256]uint8) {
	for _, c := range []byte(" \t\r\n") {
		t[c] = spaceByte
	}
	for _, c := range []byte(";&|()`") {
		t[c] = opByte
	}
	t['\''], t['"'] = quoteByte, quoteByte
	return t
}()

// maxSearchArgs bounds the arguments of a search command read for where
// it searches.
const maxSearchArgs = 16

// shellScan reads a shell text, one line and one command at a time, for
// what the commands make or work in (the targets of redirections, the
// arguments of touch and mkdir, the directory of cd) and for the first
// command that works off the task's ground. Heredoc bodies are contents,
// not commands, and are skipped.
type shellScan struct {
	st     *driftState // takes what commands make, and where they cd
	makes  bool        // whether what commands make is wanted
	ground bool        // whether off-ground commands are wanted
	found  uint8       // the first off-ground command, as a call keeps it

	// The command being read.
	start    bool     // the next word is the command's name, or a prefix
	prefixed bool     // a prefix came before: its options are skipped
	cmd      uint8    // the off-ground command it may be, as a call keeps it
	args     [][]byte // its arguments, for a search
	redirect bool     // the next word is a redirection's target
	makeArgs bool     // the words are the arguments of touch, mkdir or cd
	inCd     bool     // ... of cd

	delim []byte // the delimiter of the heredoc whose body comes next
	next  bool   // the delimiter is the next word
}

// scan reads the shell text s. What it found before stays found.
func (sh *shellScan) scan(s []byte) {
	sh.delim, sh.next = nil, false
	body := false
	for line := range bytes.Lines(s) {
		if body {
			body = !isDelimiter(line, sh.delim)
			continue
		}
		sh.line(line)
		body, sh.next = len(sh.delim) > 0, false
	}
}

// isDelimiter reports whether line, with the white space around it
// trimmed, is delim. Most lines of a heredoc's body show they are not at
// their first byte that is no ASCII space.
func isDelimiter(line, delim []byte) bool {
	i := 0
	for i < len(line) && asciiSpace[line[i]] {
		i++
	}
	if i == len(line) || line[i] < utf8.RuneSelf && line[i] != delim[0] {
		return false
	}
	return bytes.Equal(bytes.TrimSpace(line), delim)
}

// asciiSpace marks the ASCII bytes bytes.TrimSpace trims.
var asciiSpace = [256]bool{' ': true, '\t': true, '\n': true, '\v': true, '\f': true, '\r': true}

// line reads the commands of one line.
func (sh *shellScan) line(line []byte) {
	sh.startCommand()
	for i := 0; i < len(line); {
		switch shellBytes[line[i]] {
		case spaceByte:
			i++
		case opByte:
			sh.endCommand()
			sh.startCommand()
			i++
		default:
			start := i
			i = wordEnd(line, i)
			sh.word(line[start:i])
		}
	}
	sh.endCommand()
}

// wordEnd returns where the word that starts at i ends: at a space or an
// operator outside quotes.
func wordEnd(line []byte, i int) int {
	for ; i < len(line); i++ {
		switch shellBytes[line[i]] {
		case wordByte:
		case quoteByte:
			k := bytes.IndexByte(line[i+1:], line[i])
			if k < 0 {
				return len(line)
			}
			i += k + 1
		default:
			return i
		}
	}
	return i
}

func (sh *shellScan) startCommand() {
	sh.start, sh.prefixed, sh.cmd, sh.args = true, false, 0, sh.args[:0]
	sh.redirect, sh.makeArgs, sh.inCd = false, false, false
}

// word reads the next word of a command.
func (sh *shellScan) word(w []byte) {
	switch {
	case sh.redirect:
		sh.redirect = false
		sh.addMade(w, false)
		return
	case w[0] == '>':
		if string(w) == ">" || string(w) == ">>" {
			sh.redirect = true
		} else {
			sh.addMade(bytes.TrimLeft(w, ">"), false)
		}
		sh.makeArgs = false
		return
	case sh.next:
		sh.delim, sh.next = bytes.Trim(w, `"'\`), false
	case w[0] == '<' && bytes.HasPrefix(w, []byte("<<")) && !bytes.HasPrefix(w, []byte("<<<")):
		sh.delim = bytes.Trim(bytes.TrimLeft(w[2:], "-"), `"'\`)
		sh.next = len(sh.delim) == 0
	}
	if sh.start {
		sh.name(w)
		return
	}
	if sh.cmd != 0 && len(sh.args) < maxSearchArgs {
		if sh.args == nil {
			sh.args = make([][]byte, 0, maxSearchArgs)
		}
		sh.args = append(sh.args, w)
	}
	if sh.makeArgs && w[0] != '-' {
		sh.addMade(w, sh.inCd)
	}
}

// name reads the word that names the command, or a prefix before it: an
// assignment, or a command that runs the next, with its options.
func (sh *shellScan) name(w []byte) {
	if sh.prefixed && (w[0] == '-' || isDigit(w[0])) {
		return
	}
	if isAssignment(w) {
		return
	}
	role, _ := commandRoles.Get(baseName(w))
	if role == runsNext {
		sh.prefixed = true
		return
	}
	sh.start = false
	switch {
	case role == makesArgs:
		sh.makeArgs = sh.makes
	case role == changesDir:
		sh.makeArgs, sh.inCd = sh.makes, true
	case sh.ground && sh.found == 0:
		sh.cmd = role
	}
}

// endCommand judges the command read.
func (sh *shellScan) endCommand() {
	if sh.cmd == 0 {
		return
	}
	if c := groundCommands[sh.cmd-1]; c.kind != searchesRoot || searchFromRoot(c.name, sh.args) {
		sh.found = sh.cmd
	}
	sh.cmd = 0
}

// addMade passes a word that names what a command makes to made, and to
// cd when it is cd's, but not a device.
func (sh *shellScan) addMade(w []byte, cd bool) {
	if !sh.makes || len(w) == 0 {
		return
	}
	t := scan.CleanTarget(string(unquote(w)))
	if len(t) >= 5 && t[:5] == "/dev/" {
		return
	}
	sh.st.addMade(t)
	if cd {
		sh.st.changeDir(t)
	}
}
