package main

import (
	"context"
	"slices"

	"github.com/cloudwego/eino/components/tool"
	"github.com/cloudwego/eino/schema"
)

// fnTool is a tool backed by a function of its JSON arguments.
type fnTool struct {
	info *schema.ToolInfo
	fn   func(args string) (string, error)
}

func newTool(name, desc string, fn func(args string) (string, error)) tool.InvokableTool {
	return &fnTool{info: &schema.ToolInfo{Name: name, Desc: desc}, fn: fn}
}

func (t *fnTool) Info(context.Context) (*schema.ToolInfo, error) { return t.info, nil }

func (t *fnTool) InvokableRun(_ context.Context, args string, _ ...tool.Option) (string, error) {
	return t.fn(args)
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}
