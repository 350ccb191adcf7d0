package detect_test

import (
	"fmt"

	"github.com/lookout-go/lookout/observer/internal/detect"
)

func ExampleTooLarge() {
	fmt.Println(detect.TooLarge("Stall", "Window", 1<<28, 1_000, "stall.MaxWindow"))
	// Output: observer: invalid config: observer "Stall": Window 268435456 is more than stall.MaxWindow (1000)
}
