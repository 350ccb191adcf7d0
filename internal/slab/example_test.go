package slab_test

import (
	"fmt"

	"github.com/lookout-go/lookout/internal/slab"
)

type point struct{ X, Y int }

func ExampleSlab() {
	var s slab.Slab[point]
	a := s.New(&point{1, 2})
	b := s.New(&point{3, 4})
	a.X = 10
	fmt.Println(*a, *b)
	// Output: {10 2} {3 4}
}
