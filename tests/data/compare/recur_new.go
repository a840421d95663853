// The "new" version of tests/data/pprof/recur.go for the compare tests:
// walk recurses deeper, pong spins longer, and main reaches spin through a
// new function, tail.
package main

import (
	"os"
	"runtime/pprof"
	"time"
)

var sink uint64

// mix is small enough to be inlined into spin.
func mix(x uint64) uint64 { return x*6364136223846793005 + 1442695040888963407 }

//go:noinline
func spin(n int) uint64 {
	x := sink
	for i := 0; i < n; i++ {
		x = mix(x)
	}
	return x
}

//go:noinline
func walk(depth int) uint64 {
	s := spin(20000)
	if depth > 0 {
		s += walk(depth - 1)
	}
	return s
}

//go:noinline
func ping(n int) uint64 {
	s := spin(30000)
	if n > 0 {
		s += pong(n - 1)
	}
	return s
}

//go:noinline
func pong(n int) uint64 {
	s := spin(25000)
	if n > 0 {
		s += ping(n - 1)
	}
	return s
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	end := time.Now().Add(2 * time.Second)
	for time.Now().Before(end) {
		sink += walk(9)
		sink += ping(7)
		sink += tail(50000)
	}
	pprof.StopCPUProfile()
	f.Close()
}

//go:noinline
func tail(n int) uint64 { return spin(n) }
