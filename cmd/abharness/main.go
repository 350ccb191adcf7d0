package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/cloudwego/eino-ext/components/model/openai"

	"github.com/lookout-go/lookout/internal/abharness"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "abharness:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	fs := flag.NewFlagSet("abharness", flag.ContinueOnError)
	live := fs.Bool("live", false, "run the model behind OPENAI_BASE_URL instead of the scripted agents")
	seeds := fs.Int("seeds", 40, "seeds (runs per condition) per scenario")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *seeds < 1 {
		return fmt.Errorf("-seeds must be at least 1, not %d", *seeds)
	}
	agents := abharness.ScriptedAgents()
	if *live {
		cm, err := openai.NewChatModel(ctx, &openai.ChatModelConfig{BaseURL: getenv("OPENAI_BASE_URL"), APIKey: getenv("OPENAI_API_KEY"), Model: getenv("OPENAI_MODEL")})
		if err != nil {
			return err
		}
		m, err := cm.WithTools(abharness.Tools())
		if err != nil {
			return err
		}
		agents = map[string]abharness.NewAgent{"model": func(s abharness.Scenario, _ abharness.Variant, _ uint64) abharness.Agent {
			return abharness.NewLive(m, s)
		}}
	}
	r, err := abharness.Measure(ctx, abharness.Scenarios(), *seeds, agents, abharness.Block, abharness.Placebo)
	if err != nil {
		return err
	}
	return r.Print(stdout)
}
