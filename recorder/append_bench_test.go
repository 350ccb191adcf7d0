package recorder

import "testing"

// BenchmarkAppendString writes, as JSON strings, the texts of a tool
// call that the records of an agent's call carry: a reply, a tool call's
// arguments and a source file read by the tool.
func BenchmarkAppendString(b *testing.B) {
	texts := []string{
		"I listed the service's directory. The billing handler lives in internal/billing/handler.go; " +
			"next I read it to find where invoices are rounded.",
		`{"path":"internal/billing/handler.go","offset":0,"limit":200}`,
		"package billing\n\n// Handler serves invoices.\n" +
			"func (h *Handler) Invoice(ctx context.Context, id string) (*Invoice, error) {\n" +
			"\tinv, err := h.store.Get(ctx, id)\n\tif err != nil {\n\t\treturn nil, fmt.Errorf(\"get invoice %s: %w\", id, err)\n" +
			"\t}\n\tinv.Total = round(inv.Total, 2)\n\treturn inv, nil\n}\n",
		"call_42", "read_file", "gpt-4o-mini",
	}
	buf := make([]byte, 0, 4096)
	for b.Loop() {
		buf = buf[:0]
		for _, s := range texts {
			buf = appendString(buf, s)
		}
	}
}
