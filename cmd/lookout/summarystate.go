package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/lookout-go/lookout/recorder/summary"
)

// summaryState is the --state file of summarize: one JSON prompt per
// line, appended as each prompt is done, so that a run cut short resumes
// where it stopped.
type summaryState struct {
	f        *os.File
	w        *bufio.Writer
	previous summary.Prompts
	err      error
}

// openState reads the prompts of the state file at path, if it exists,
// and opens it for appending. A line cut short by a killed run is skipped.
func openState(path string) (*summaryState, error) {
	previous, err := readState(path)
	if err != nil {
		return nil, fmt.Errorf("summarize: state: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("summarize: state: %w", err)
	}
	return &summaryState{f: f, w: bufio.NewWriter(f), previous: previous}, nil
}

// readState returns the prompts of the state file at path, none when it
// does not exist, and ends a line cut short, so that the next one starts
// on its own.
func readState(path string) (summary.Prompts, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	previous := parsePrompts(data)
	if n := len(data); n > 0 && data[n-1] != '\n' {
		if err := os.WriteFile(path, append(data, '\n'), 0o600); err != nil {
			return nil, err
		}
	}
	return previous, nil
}

// parsePrompts returns the prompts of the lines of data, skipping blank
// lines and lines that are not a whole prompt.
func parsePrompts(data []byte) summary.Prompts {
	var prompts summary.Prompts
	for _, line := range bytes.Split(data, []byte("\n")) {
		var p summary.Prompt
		if len(bytes.TrimSpace(line)) > 0 && json.Unmarshal(line, &p) == nil {
			prompts = append(prompts, p)
		}
	}
	return prompts
}

// save appends p, flushed at once so that a kill loses nothing done.
func (st *summaryState) save(p summary.Prompt) {
	if st.err != nil {
		return
	}
	b, err := json.Marshal(p)
	if err == nil {
		b = append(b, '\n')
		_, err = st.w.Write(b)
	}
	if err == nil {
		err = st.w.Flush()
	}
	st.err = err
}

func (st *summaryState) close() error {
	return errors.Join(st.err, st.f.Close())
}
