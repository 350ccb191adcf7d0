package adaptertest_test

import (
	"context"
	"fmt"
	"time"

	"github.com/lookout-go/lookout/adapters/internal/adaptertest"
)

func Example() {
	clock := adaptertest.NewClock()
	clock.Advance(90 * time.Second)
	fmt.Println(clock.Now().Format(time.TimeOnly))

	out, err := adaptertest.Echo("search").InvokableRun(context.Background(), `{"q":"go"}`)
	fmt.Println(out, err)
	_, err = adaptertest.Failing("deploy", "permission denied").InvokableRun(context.Background(), `{}`)
	fmt.Println(err)
	// Output:
	// 14:01:30
	// search ok {"q":"go"} <nil>
	// permission denied
}
