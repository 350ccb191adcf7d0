package secretcorpus_test

import (
	"fmt"

	"github.com/lookout-go/lookout/internal/secretcorpus"
)

func ExampleParseSecrets() {
	texts, err := secretcorpus.ParseSecrets("acme | api key | ACME_KEY=«acme_{d:4}»\n", 1)
	if err != nil {
		panic(err)
	}
	t := texts[0]
	fmt.Println(t.Provider, len(t.Text), len(t.Secrets[0]))
	// Output: acme 18 9
}
