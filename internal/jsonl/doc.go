// Package jsonl splits JSON Lines input into lines with a bound on how
// long a line may be, for the recorder's Reader and the lookout command's
// validate, which must agree on what a line is.
//
// A line longer than the bound is consumed without keeping its bytes and
// reported as too long, so one huge line costs no more memory than the
// bound. The last line of the input may lack its newline; Next says
// whether a newline ended each line, which is how a torn last line is told
// from a whole one.
package jsonl
