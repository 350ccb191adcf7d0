package atif

import (
	"maps"
	"strconv"
)

// uniqueCallIDs returns step s with the tool_call_ids it repeats made
// unique, since Harbor's validator rejects a step that names one id
// twice: the second call with an id becomes "<id>#2", the third "<id>#3"
// (skipping names the step already uses; "call#2" for calls made without
// an id, whose results name no call), and the results that name the
// id are given the new names in the same order, the k-th result for the
// k-th call. Each renamed call keeps its id in extra.lookout.tool_call_id,
// which ToRecords puts back. A step without repeats is returned as it is.
func uniqueCallIDs(s Step) Step {
	if !repeatsCallID(s.ToolCalls) {
		return s
	}
	used := make(map[string]bool, len(s.ToolCalls))
	for _, c := range s.ToolCalls {
		used[c.ID] = true
	}
	seen := make(map[string]int, len(s.ToolCalls))
	names := make(map[string][]string, 1) // the names each repeated id's calls get, in order
	calls := make([]ToolCall, len(s.ToolCalls))
	for i, c := range s.ToolCalls {
		seen[c.ID]++
		name := c.ID
		if seen[c.ID] > 1 {
			name = freeName(c.ID, seen[c.ID], used)
			used[name] = true
			c.Extra = withLookout(c.Extra, "tool_call_id", c.ID)
			c.ID = name
		}
		names[s.ToolCalls[i].ID] = append(names[s.ToolCalls[i].ID], name)
		calls[i] = c
	}
	s.ToolCalls = calls
	if s.Observation != nil {
		obs := *s.Observation
		obs.Results = append([]ObservationResult(nil), obs.Results...)
		taken := make(map[string]int, len(names))
		for i, r := range obs.Results {
			if n := names[r.SourceCallID]; len(n) > 1 && r.SourceCallID != "" && taken[r.SourceCallID] < len(n) {
				id := r.SourceCallID
				obs.Results[i].SourceCallID = n[taken[id]]
				taken[id]++
			}
		}
		s.Observation = &obs
	}
	return s
}

// repeatsCallID reports whether two of calls share an id.
func repeatsCallID(calls []ToolCall) bool {
	for i := 1; i < len(calls); i++ {
		for j := range i {
			if calls[i].ID == calls[j].ID {
				return true
			}
		}
	}
	return false
}

// freeName returns "<id>#<n>", or the first "<id>#<m>" after it that used
// does not hold; an empty id is named "call".
func freeName(id string, n int, used map[string]bool) string {
	if id == "" {
		id = "call"
	}
	for ; ; n++ {
		if name := id + "#" + strconv.Itoa(n); !used[name] {
			return name
		}
	}
}

// withLookout returns a copy of extra with key set to val under ExtraKey.
func withLookout(extra map[string]any, key string, val any) map[string]any {
	out := maps.Clone(extra)
	if out == nil {
		out = map[string]any{}
	}
	info := maps.Clone(lookoutExtra(out))
	if info == nil {
		info = map[string]any{}
	}
	info[key] = val
	out[ExtraKey] = info
	return out
}

// originalCallIDs returns step s with the tool_call_ids uniqueCallIDs
// renamed given back, in its calls and in the results that name them.
func originalCallIDs(s *Step) *Step {
	renamed := map[string]string{}
	for _, c := range s.ToolCalls {
		if id, ok := lookoutExtra(c.Extra)["tool_call_id"].(string); ok {
			renamed[c.ID] = id
		}
	}
	if len(renamed) == 0 {
		return s
	}
	out := *s
	out.ToolCalls = append([]ToolCall(nil), s.ToolCalls...)
	for i, c := range out.ToolCalls {
		if id, ok := renamed[c.ID]; ok {
			out.ToolCalls[i].ID = id
			out.ToolCalls[i].Extra = dropLookoutKey(c.Extra, "tool_call_id")
		}
	}
	if s.Observation != nil {
		obs := *s.Observation
		obs.Results = append([]ObservationResult(nil), obs.Results...)
		for i, r := range obs.Results {
			if id, ok := renamed[r.SourceCallID]; ok {
				obs.Results[i].SourceCallID = id
			}
		}
		out.Observation = &obs
	}
	return &out
}

// dropLookoutKey returns a copy of extra without key under ExtraKey, and
// without ExtraKey or extra itself once they are empty.
func dropLookoutKey(extra map[string]any, key string) map[string]any {
	out := maps.Clone(extra)
	info := maps.Clone(lookoutExtra(out))
	delete(info, key)
	if len(info) == 0 {
		delete(out, ExtraKey)
	} else {
		out[ExtraKey] = info
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
