package abharness

import (
	"encoding/json"
	"fmt"
)

// Variant is one version of a scenario. The calls of an agent that is
// stuck differ from variant to variant, an observer's section names the
// variant's Key when it sees them, and only the variant's own Fix solves
// the scenario: an agent can pick the right fix from the block only by
// reading what the block says.
type Variant struct {
	// Key is what the block names when the agent is stuck in this
	// variant: a path, an error's cause, the declared scope.
	Key string
	// Fix is the call that solves the variant (Tool, and Args as JSON
	// whose keys must all match the call's).
	Fix Call
	// Scope is the declared scope of the task, for Drift.
	Scope []string
}

// Scenario is a task an agent gets stuck in, in several variants.
type Scenario struct {
	Name string
	// Observer is the heading of the section that speaks of the pattern:
	// "Stall", "Errors" or "Drift".
	Observer string
	// Prompt is the task as the agent is given it.
	Prompt   string
	Variants []Variant
	// Stuck is the call an agent that is stuck makes at step i.
	Stuck func(v Variant, i int) Call
	// Answer is what the tool answers to a call that is not the fix:
	// its result, or its error.
	Answer func(v Variant, c Call) (result, err string)
	// FixResult is what the tool answers to the fix.
	FixResult string
}

// Scenarios are the scenarios the harness runs, one for each detector
// whose advice depends on what it saw.
func Scenarios() []Scenario {
	return []Scenario{stallScenario(), errorsScenario(), driftScenario()}
}

func stallScenario() Scenario {
	manifests := [][2]string{{"go.mod", "go.sum"}, {"package.json", "package-lock.json"}, {"Cargo.toml", "Cargo.lock"}, {"pyproject.toml", "poetry.lock"}}
	s := Scenario{
		Name:      "stall: rereading the manifest for a locked version",
		Observer:  "Stall",
		Prompt:    "Find the version of the acme-log dependency that this project has locked, and report it.",
		FixResult: "acme-log 1.4.2 (locked)",
		Stuck: func(v Variant, _ int) Call {
			return Call{Tool: "read_file", Args: pathArgs(v.Key)}
		},
		Answer: func(v Variant, c Call) (string, string) {
			path := argOf(c.Args, "path")
			switch {
			case c.Tool == "read_file" && path == v.Key:
				return "dependencies:\n  acme-log (any version)", ""
			case c.Tool == "list_dir":
				return v.Key + "\n" + argOf(v.Fix.Args, "path") + "\nREADME.md", ""
			}
			return "", fmt.Sprintf("open %s: no such file or directory", path)
		},
	}
	for _, m := range manifests {
		s.Variants = append(s.Variants, Variant{Key: m[0], Fix: Call{Tool: "read_file", Args: pathArgs(m[1])}})
	}
	return s
}

func errorsScenario() Scenario {
	const conf = "/etc/app/app.conf"
	return Scenario{
		Name:      "errors: writing a config that cannot be written",
		Observer:  "Errors",
		Prompt:    "Set the service's port to 8080 in its configuration.",
		FixResult: "done",
		Variants: []Variant{
			{Key: "permission denied", Fix: Call{Tool: "write_file", Args: pathArgs("/etc/app/conf.d/port.conf")}},
			{Key: "read-only file system", Fix: Call{Tool: "write_file", Args: pathArgs("/var/lib/app/overrides.conf")}},
			{Key: "no such file or directory", Fix: Call{Tool: "make_dir", Args: pathArgs("/etc/app")}},
			{Key: "locked by another process", Fix: Call{Tool: "stop_service", Args: `{"name":"app-reloader"}`}},
		},
		Stuck: func(Variant, int) Call {
			return Call{Tool: "write_file", Args: `{"path":"` + conf + `","content":"port: 8080"}`}
		},
		Answer: func(v Variant, c Call) (string, string) {
			if c.Tool == "write_file" {
				return "", "open " + argOf(c.Args, "path") + ": " + v.Key
			}
			return "nothing to do", ""
		},
	}
}

func driftScenario() Scenario {
	s := Scenario{
		Name:      "drift: wandering off while the scope is declared",
		Observer:  "Drift",
		Prompt:    "Customers see invoice totals off by a cent. Fix the rounding bug in the service you are assigned to.",
		FixResult: "func round(x float64) float64 { return math.Floor(x*100) / 100 } // truncates: should round half up",
		Stuck: func(_ Variant, i int) Call {
			return Call{Tool: "read_file", Args: pathArgs(fmt.Sprintf("web/marketing/page%d.tsx", i))}
		},
		Answer: func(_ Variant, c Call) (string, string) {
			if c.Tool == "list_dir" {
				return "services/billing\nservices/payments\nservices/ledger\nservices/tax\nweb/marketing", ""
			}
			return "rounding here is correct", ""
		},
	}
	for _, svc := range []string{"billing", "payments", "ledger", "tax"} {
		scope := "services/" + svc
		s.Variants = append(s.Variants, Variant{Key: scope, Scope: []string{scope}, Fix: Call{Tool: "read_file", Args: pathArgs(scope + "/round.go")}})
	}
	return s
}

func pathArgs(path string) string { return `{"path":"` + path + `"}` }

// argOf returns the string argument key of the JSON arguments args, or ""
// when there is none.
func argOf(args, key string) string {
	var m map[string]any
	if json.Unmarshal([]byte(args), &m) != nil {
		return ""
	}
	s, _ := m[key].(string)
	return s
}

// fixes reports whether c is the fix f: the same tool, and every argument
// of f's with the same value in c.
func fixes(f, c Call) bool {
	if f.Tool != c.Tool {
		return false
	}
	var want, got map[string]any
	if json.Unmarshal([]byte(f.Args), &want) != nil || json.Unmarshal([]byte(c.Args), &got) != nil {
		return false
	}
	for k, v := range want {
		if got[k] != v {
			return false
		}
	}
	return true
}
