package session_test

import (
	"fmt"
	"maps"
	"time"

	"github.com/lookout-go/lookout/session"
)

type toolCall struct {
	Tool string `json:"tool"`
	OK   bool   `json:"ok"`
}

type budget struct {
	TokensUsed int `json:"tokens_used"`
}

func Example() {
	clock := func() time.Time { return time.Date(2026, 1, 15, 14, 0, 0, 0, time.UTC) }
	store := session.New(&session.StoreOptions{Retention: 2, Now: clock})

	calls := session.LogOf[toolCall](store)
	calls.Append(toolCall{Tool: "read_file", OK: true})
	calls.Append(toolCall{Tool: "run_tests", OK: false})
	calls.Append(toolCall{Tool: "read_file", OK: true})

	spent := session.ValueOf[budget](store)
	spent.Seed(budget{TokensUsed: 1200})
	spent.Update(func(b budget, _ bool) budget { b.TokensUsed += 300; return b })

	latest, _ := spent.Latest()
	fmt.Println("retained:", calls.Len(), "ever:", calls.Total())
	fmt.Println("last two:", calls.Last(2))
	fmt.Println("tokens:", latest.TokensUsed)
	// Output:
	// retained: 2 ever: 3
	// last two: [{run_tests false} {read_file true}]
	// tokens: 1500
}

func ExampleStore_Snapshot() {
	clock := func() time.Time { return time.Date(2026, 1, 15, 14, 0, 0, 0, time.UTC) }
	store := session.New(&session.StoreOptions{Now: clock})
	session.LogOf[toolCall](store).Append(toolCall{Tool: "search", OK: true})
	session.ValueOf[budget](store).Seed(budget{TokensUsed: 42})

	data, _ := store.Snapshot()
	fmt.Println(string(data))

	// A restoring store opens the same slices first.
	restored := session.New(nil)
	session.LogOf[toolCall](restored)
	session.ValueOf[budget](restored)
	if err := restored.Restore(data); err != nil {
		fmt.Println(err)
	}
	got, _ := session.ValueOf[budget](restored).Latest()
	fmt.Println("restored tokens:", got.TokensUsed)
	// Output:
	// {"schema_version":1,"slices":[{"name":"log:github.com/lookout-go/lookout/session_test.toolCall","kind":"log","total":1,"entries":[{"at":"2026-01-15T14:00:00Z","value":{"tool":"search","ok":true}}]},{"name":"value:github.com/lookout-go/lookout/session_test.budget","kind":"value","value":{"tokens_used":42}}]}
	// restored tokens: 42
}

func ExampleValue_Change() {
	spent := session.ValueOf[budget](session.New(nil))
	before, _ := spent.Latest()
	for range 3 {
		spent.Change(func(b *budget, _ bool) { b.TokensUsed += 100 })
	}
	after, _ := spent.Latest()
	fmt.Println("before:", before.TokensUsed, "after:", after.TokensUsed)
	// Output:
	// before: 0 after: 300
}

// seen counts calls per tool. As a Cloner, its session value hands
// readers copies, so it can be changed in place.
type seen map[string]int

func (s seen) Clone() seen { return maps.Clone(s) }

func ExampleCloner() {
	calls := session.ValueOf[seen](session.New(nil))
	count := func(tool string) {
		calls.Change(func(s *seen, _ bool) {
			if *s == nil {
				*s = seen{}
			}
			(*s)[tool]++
		})
	}
	count("search")
	before, _ := calls.Latest()
	count("search")
	count("fetch")
	after, _ := calls.Latest()
	fmt.Println("before:", before)
	fmt.Println("after:", after)
	// Output:
	// before: map[search:1]
	// after: map[fetch:1 search:2]
}

func ExampleLog_Range() {
	calls := session.LogOf[toolCall](session.New(nil))
	for _, tool := range []string{"search", "fetch", "search", "summarize"} {
		calls.Append(toolCall{Tool: tool, OK: true})
	}
	// The calls at positions 1 and 2, read in place.
	for pos, c := range calls.Range(1, 3) {
		fmt.Println(pos, c.Tool)
	}
	// Output:
	// 1 fetch
	// 2 search
}
