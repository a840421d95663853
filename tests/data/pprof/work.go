// A mixed workload of the Go standard library, profiled by runtime/pprof:
// JSON of nested values (recursive encoder and decoder), regular
// expressions, sorting, compression, text templates and fmt. Two
// goroutines run it so that the profile has many distinct stacks.
//
// Usage: work OUT.pb.gz SECONDS [more]. The profile is taken at 1000 Hz (the rate
// set before StartCPUProfile, which then prints that it cannot set its own
// 100 Hz: the higher rate stays).
package main

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"
)

type node struct {
	Name     string            `json:"name"`
	Value    float64           `json:"value"`
	Tags     map[string]string `json:"tags"`
	Children []*node           `json:"children"`
}

func tree(depth, fan int, seed *uint64) *node {
	*seed = *seed*6364136223846793005 + 1442695040888963407
	n := &node{Name: "n" + strconv.FormatUint(*seed>>40, 16), Value: float64(*seed>>33) / 7,
		Tags: map[string]string{"k": strconv.Itoa(depth), "s": fmt.Sprint(*seed % 97)}}
	if depth > 0 {
		for i := 0; i < int(*seed%uint64(fan))+1; i++ {
			n.Children = append(n.Children, tree(depth-1, fan, seed))
		}
	}
	return n
}

var sink int

func work(seed uint64, end time.Time) {
	re := regexp.MustCompile(`(\w+)@(\w+)\.(com|org|net)|n[0-9a-f]{3,}`)
	tmpl := template.Must(template.New("t").Parse(
		`{{define "n"}}{{.Name}}:{{printf "%.2f" .Value}}[{{range .Children}}{{template "n" .}}{{end}}]{{end}}{{template "n" .}}`))
	for time.Now().Before(end) {
		t := tree(6, 4, &seed)
		b, _ := json.Marshal(t)
		var back node
		_ = json.Unmarshal(b, &back)
		sink += len(re.FindAllString(string(b), -1))
		words := strings.FieldsFunc(string(b), func(r rune) bool { return r == '"' || r == ',' || r == ':' })
		sort.Strings(words)
		var buf bytes.Buffer
		w, _ := flate.NewWriter(&buf, int(seed%9)+1)
		_, _ = w.Write(b)
		_ = w.Close()
		var out bytes.Buffer
		_ = tmpl.Execute(&out, t)
		sink += buf.Len() + out.Len() + len(fmt.Sprintf("%v", back.Tags))
	}
}

func main() {
	// "more": the heap, allocs, block, mutex, goroutine and threadcreate
	// profiles too, written beside the CPU profile (OUT less .pb.gz, then
	// .heap.pb.gz, ...); the goroutines then take turns at a lock, so that
	// there is contention. Go 1.19's threadcreate profile has samples
	// without a stack.
	more := len(os.Args) > 3 && os.Args[3] == "more"
	if more {
		runtime.MemProfileRate = 4096
		runtime.SetBlockProfileRate(1)
		runtime.SetMutexProfileFraction(1)
	}
	runtime.SetCPUProfileRate(1000)
	f, err := os.Create(os.Args[1])
	if err != nil {
		panic(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		panic(err)
	}
	secs, _ := strconv.Atoi(os.Args[2])
	end := time.Now().Add(time.Duration(secs) * time.Second)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func(s uint64) {
			defer wg.Done()
			if !more {
				work(s, end)
				return
			}
			for time.Now().Before(end) {
				mu.Lock()
				work(s, time.Now().Add(20*time.Millisecond))
				mu.Unlock()
			}
		}(uint64(g + 1))
	}
	wg.Wait()
	pprof.StopCPUProfile()
	f.Close()
	if more {
		base := strings.TrimSuffix(os.Args[1], ".pb.gz")
		for _, name := range []string{"heap", "allocs", "block", "mutex", "goroutine", "threadcreate"} {
			out, err := os.Create(base + "." + name + ".pb.gz")
			if err != nil {
				panic(err)
			}
			if err := pprof.Lookup(name).WriteTo(out, 0); err != nil {
				panic(err)
			}
			out.Close()
			// The same profile as text (debug=1), which cgprop refuses
			// with a note on how to get the protocol buffer instead.
			txt, err := os.Create(base + "." + name + ".txt")
			if err != nil {
				panic(err)
			}
			if err := pprof.Lookup(name).WriteTo(txt, 1); err != nil {
				panic(err)
			}
			txt.Close()
		}
	}
}
