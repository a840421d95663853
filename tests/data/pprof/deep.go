// deep.go: a recursion deeper than Go's CPU profiler records (64 frames).
// Half the time goes to spin at the bottom of a 100-deep recursion, half
// to spin called directly: every sample is under main.main, but the deep
// ones lose their outer frames.
package main

import (
	"os"
	"runtime/pprof"
)

var sink int

//go:noinline
func spin(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i * i
	}
	return s
}

//go:noinline
func deep(d int) int {
	if d == 0 {
		return spin(400000)
	}
	return deep(d-1) + 1
}

//go:noinline
func shallow() int { return spin(400000) }

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	pprof.StartCPUProfile(f)
	for i := 0; i < 2500; i++ {
		sink += deep(100)
		sink += shallow()
	}
	pprof.StopCPUProfile()
	f.Close()
}
