package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
)

// Exit statuses. When several apply, as when validate finds one file
// invalid and cannot read another, the highest is returned.
const (
	exitOK         = 0
	exitProblems   = 1 // invalid input, validation failures, nothing to export, a failed write
	exitUsage      = 2 // unknown command, bad flags, missing arguments
	exitUnreadable = 3 // a file that cannot be read: missing, no permission, a directory with nothing to read
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// command is one subcommand.
type command struct {
	name    string
	args    string // the positional arguments, for the usage line
	summary string
	details string
	// examples are command lines indented by two spaces, most with a
	// "#" comment above, shown under "Examples:" in the help.
	examples string
	// flags declares the command's flags on fs; the returned function runs
	// the command on the positional arguments once they are parsed.
	flags func(fs *flag.FlagSet) func(ctx context.Context, env *env, files []string) int
	// minArgs and maxArgs bound the positional arguments; maxArgs < 0
	// means no bound.
	minArgs, maxArgs int
}

// env is what a command reads from and writes to.
type env struct {
	stdin          io.Reader // read for the file name "-"
	stdout, stderr io.Writer
	// usageErr is a bad flag value a command found once its flags were
	// parsed; see badUsage.
	usageErr error
	// progress reports long work on stderr; see newProgress.
	progress *progress
}

// badUsage reports a bad flag value, found once the flags are parsed: the
// command's usage follows the message on standard error, as for flags
// the parser rejects, and the exit status is exitUsage.
func (e *env) badUsage(format string, args ...any) int {
	e.usageErr = fmt.Errorf(format, args...)
	return exitUsage
}

// outputWriter remembers the first error of the writer it wraps, so that
// output that could not be written fails the command even where a write's
// error is not checked.
type outputWriter struct {
	w   io.Writer
	err error
}

func (o *outputWriter) Write(p []byte) (int, error) {
	n, err := o.w.Write(p)
	if err != nil && o.err == nil {
		o.err = err
	}
	return n, err
}

// fail reports a runtime failure and returns exitProblems.
func (e *env) fail(format string, args ...any) int {
	e.progress.clear()
	fmt.Fprintf(e.stderr, "lookout: "+format+"\n", args...)
	return exitProblems
}

// failErr reports err and returns its exit status: exitUnreadable when
// it wraps an *unreadableError, exitProblems otherwise.
func (e *env) failErr(err error) int {
	e.fail("%v", err)
	return exitCode(err)
}

// exitCode is the exit status of a command that failed with err.
func exitCode(err error) int {
	var unreadable *unreadableError
	if errors.As(err, &unreadable) {
		return exitUnreadable
	}
	return exitProblems
}

// unreadableError is a file that could not be read at all, as opposed to
// one whose content is invalid.
type unreadableError struct{ err error }

func (u *unreadableError) Error() string { return u.err.Error() }
func (u *unreadableError) Unwrap() error { return u.err }

// warn reports something the user should know that does not fail the
// command.
func (e *env) warn(format string, args ...any) {
	e.progress.clear()
	fmt.Fprintf(e.stderr, "lookout: "+format+"\n", args...)
}

var commands = []*command{inspectCmd, exportCmd, validateCmd, summarizeCmd, reportCmd, serveCmd, mergeCmd, batchCmd, versionCmd}

func lookup(name string) *command {
	for _, c := range commands {
		if c.name == name {
			return c
		}
	}
	return nil
}

// run is the whole program: it runs the command named by args[0] and
// returns the exit status. A command that succeeded but could not write
// all of its output to stdout fails with exitProblems.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	out := &outputWriter{w: stdout}
	code := dispatch(args, stdin, out, stderr)
	if out.err != nil && code == exitOK {
		fmt.Fprintf(stderr, "lookout: write: %v\n", out.err)
		return exitProblems
	}
	return code
}

func dispatch(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	e := &env{stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "-version", "--version":
		return versionCmd.run(ctx, e, args[1:])
	case "help":
		return help(args[1:], stdout, stderr)
	case "-h", "-help", "--help":
		usage(stdout)
		return exitOK
	}
	c := lookup(args[0])
	if c == nil {
		return unknownCommand(args[0], stderr)
	}
	return c.run(ctx, e, args[1:])
}

// help prints the help of the command args names, as in "lookout help
// inspect", or the program's without one.
func help(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return exitOK
	}
	c := lookup(args[0])
	if c == nil {
		return unknownCommand(args[0], stderr)
	}
	fs, _, _ := c.declare()
	commandUsage(stdout, c, fs)
	return exitOK
}

// unknownCommand reports that no command is called name, and where the
// commands are listed, and returns exitUsage.
func unknownCommand(name string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "lookout: unknown command %q\nRun 'lookout help' for the commands.\n", name)
	return exitUsage
}

// usageLine is the command's synopsis: its name, "[flags]" when it has
// any, and its positional arguments.
func (c *command) usageLine() string {
	fs, _, _ := c.declare()
	line := "lookout " + c.name
	hasFlags := false
	fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		line += " [flags]"
	}
	if c.args != "" {
		line += " " + c.args
	}
	return line
}

func (c *command) newFlagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("lookout "+c.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return fs
}

// declare returns the command's flags, the function that runs it once
// they are parsed, and the value of --progress, which every command that
// reads files has.
func (c *command) declare() (*flag.FlagSet, func(context.Context, *env, []string) int, *bool) {
	fs := c.newFlagSet()
	body := c.flags(fs)
	forced := new(bool)
	if c.args != "" {
		fs.BoolVar(forced, "progress", false, "report progress on standard error even when it is not a terminal")
	}
	return fs, body, forced
}

func (c *command) run(ctx context.Context, e *env, args []string) int {
	fs, body, forced := c.declare()
	files, err := parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		commandUsage(e.stdout, c, fs)
		return exitOK
	}
	if err == nil {
		err = c.checkArgs(files)
	}
	if err != nil {
		return c.usageError(e, err)
	}
	e.progress = newProgress(e.stderr, *forced)
	code := body(ctx, e, files)
	if e.usageErr != nil {
		return c.usageError(e, e.usageErr)
	}
	return code
}

// checkArgs reports a usage error when there are fewer positional
// arguments than the command needs, or more than it takes.
func (c *command) checkArgs(files []string) error {
	if len(files) < c.minArgs {
		return fmt.Errorf("missing %s", c.args)
	}
	if c.maxArgs >= 0 && len(files) > c.maxArgs {
		return fmt.Errorf("too many arguments: %s", strings.Join(files[c.maxArgs:], " "))
	}
	return nil
}

// usageError prints err, the command's synopsis and where its help is
// to stderr, and returns exitUsage: the whole help would bury the error.
func (c *command) usageError(e *env, err error) int {
	fmt.Fprintf(e.stderr, "lookout %s: %v\nUsage: %s\nRun 'lookout help %s' for details.\n", c.name, err, c.usageLine(), c.name)
	return exitUsage
}

// parse parses flags that may come before, between or after the
// positional arguments, and returns the positional ones. Everything after
// "--" is positional.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		if consumed := len(args) - len(rest); consumed > 0 && args[consumed-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}

func usage(w io.Writer) {
	fmt.Fprint(w, `Usage: lookout <command> [flags] FILE...

Inspect, export, validate and summarize recorded agent trajectories: the
JSON Lines files Lookout's recorder writes. Commands that read records also
accept an ATIF trajectory file. A FILE of - reads standard input; a
directory stands for every *.jsonl and *.jsonl.gz file under it, in lexical
order. Gzip-compressed files are read as they are.

Commands:
`)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-10s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, `  help       show this help, or a command's: lookout help <command>

lookout --version is lookout version.

Exit status: 0 on success; 1 when problems are found (invalid input, a
failed validation, nothing to export, output that cannot be written); 2 on
a usage error; 3 when a file cannot be read.
`)
}

func commandUsage(w io.Writer, c *command, fs *flag.FlagSet) {
	fmt.Fprintf(w, "Usage: %s\n\n%s\n", c.usageLine(), c.details)
	var flags strings.Builder
	fs.SetOutput(&flags)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	if flags.Len() > 0 {
		fmt.Fprintf(w, "\nFlags:\n%s", flags.String())
	}
	fmt.Fprintf(w, "\nExamples:\n%s\n", c.examples)
}
