package messages

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/lookout-go/lookout/recorder"
)

// FromConversation returns a whole conversation as chat messages: the
// conversations of the root runs recorded with conversation id (see
// recorder.RunStarted), or of the only conversation in records when id is
// empty, one after the other in turn order. Each turn records only what
// was new in it, so together they are the whole conversation, with the
// messages Lookout injected shown as FromRecords shows them. Options work
// as for FromRecords; RunID is not used. It fails with ErrNoRootRun when
// the conversation is not in records, and with ErrAmbiguousRoot when
// several are and id is empty.
func FromConversation(records []recorder.Record, id string, opts *Options) ([]Message, error) {
	turns, ids := conversationTurns(records, id)
	switch {
	case id == "" && len(ids) > 1:
		return nil, fmt.Errorf("%w: %d conversations (%s); pick one", ErrAmbiguousRoot, len(ids), strings.Join(ids, ", "))
	case len(turns) == 0:
		return nil, fmt.Errorf("%w: no conversation %q", ErrNoRootRun, id)
	}
	slices.SortStableFunc(turns, func(a, b turn) int { return cmp.Compare(a.n, b.n) })
	o := optionsOf(opts)
	var out []Message
	for _, t := range turns {
		o.RunID = t.run
		msgs, err := FromRecords(records, &o)
		if err != nil {
			return nil, err
		}
		out = append(out, msgs...)
	}
	return out, nil
}

// turn is one turn of a conversation: its root run and its number.
type turn struct {
	run string
	n   int
}

// conversationTurns returns the turns of conversation id in records, in
// the order recorded, or of every conversation when id is empty, and the
// ids of all the conversations there.
func conversationTurns(records []recorder.Record, id string) (turns []turn, ids []string) {
	for i := range records {
		r := &records[i]
		p, ok := conversationStart(r)
		if !ok {
			continue
		}
		if !slices.Contains(ids, p.ConversationID) {
			ids = append(ids, p.ConversationID)
		}
		if id == "" || p.ConversationID == id {
			turns = append(turns, turn{r.RunID, p.Turn})
		}
	}
	return turns, ids
}

// conversationStart returns the start of a root run that is a turn of a
// conversation, and false for any other record.
func conversationStart(r *recorder.Record) (*recorder.RunStarted, bool) {
	p, ok := r.Payload.(*recorder.RunStarted)
	if !ok || p.ConversationID == "" || r.ParentRunID != "" && r.ParentRunID != r.RunID {
		return nil, false
	}
	return p, true
}
