package recorder

import "strings"

// sqlPasswordAt redacts the password a SQL statement sets for a user or a
// role, after the keyword at s[at:end]: IDENTIFIED BY '…' (MySQL,
// MariaDB and, unquoted, Oracle) and PASSWORD '…' (PostgreSQL's CREATE
// and ALTER ROLE, Snowflake, ClickHouse). A quoted password counts
// whatever it is; an unquoted one, which may be a word of the statement,
// only after IDENTIFIED BY and when it looks random. The '=' of
// PASSWORD = '…' makes that a pair.
func sqlPasswordAt(s string, at, end int, spans []span) []span {
	if at > 0 && isKeyByte(s[at-1]) || end < len(s) && isKeyByte(s[end]) {
		return spans
	}
	v := runEnd(s, end, isBlank)
	if v == end || v >= len(s) {
		return spans
	}
	switch q := s[v]; q {
	case '\'', '"':
		e := strings.IndexByte(s[v+1:], q)
		if e <= 0 || strings.IndexByte(s[v+1:v+1+e], '\n') >= 0 {
			return spans
		}
		return appendArgSecret(s, span{v + 1, v + 1 + e}, spans)
	}
	if s[at] != 'I' {
		return spans
	}
	e := runEnd(s, v, isArgByte)
	for e > v && s[e-1] == ';' {
		e--
	}
	if looksRandom(s[v:e]) {
		return appendArgSecret(s, span{v, e}, spans)
	}
	return spans
}

// authCommandAt redacts the password of Redis's AUTH command typed at
// redis-cli's prompt, whose "AUTH " is at s[at:end]: AUTH PASSWORD or
// AUTH USER PASSWORD, the last argument on the line. The prompt ends in a
// port or a database number and "> " ("127.0.0.1:6379> ", "…:6379[2]> ",
// its '>' escaped as \u003e in a JSON string that Go wrote), which tells
// it from a quote in Markdown.
func authCommandAt(s string, at, end int, spans []span) []span {
	p := at
	switch {
	case p >= 2 && s[p-2:p] == "> ":
		p -= 2
	case p >= 7 && s[p-7:p] == `\u003e `:
		p -= 7
	default:
		return spans
	}
	if p == 0 || !isDigit(s[p-1]) && s[p-1] != ']' {
		return spans
	}
	var buf [3]span
	args := lineArgs(s[:lineEndAt(s, end)], end, buf[:])
	for len(args) > 0 && runEnd(s[:args[len(args)-1].end], args[len(args)-1].start, func(c byte) bool { return !isAlnum(c) }) == args[len(args)-1].end {
		args = args[:len(args)-1] // the end of a JSON string the command is in
	}
	if len(args) == 0 || len(args) > 2 {
		return spans
	}
	return appendArgSecret(s, args[len(args)-1], spans)
}

// lineEndAt returns where the line of s that holds i ends: at a newline
// or at the \n or \r escape of a JSON string.
func lineEndAt(s string, i int) int {
	for ; i < len(s); i++ {
		switch s[i] {
		case '\n':
			return i
		case '\\':
			if i+1 < len(s) && (s[i+1] == 'n' || s[i+1] == 'r') {
				return i
			}
			i++
		}
	}
	return len(s)
}
