//go:build !linux

package observer_test

import "testing"

// threadCPU reports nothing where the thread's CPU time is not available.
type threadCPU struct{}

func (c *threadCPU) start()            {}
func (c *threadCPU) stop(_ *testing.B) {}
