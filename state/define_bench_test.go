package state

import (
	"strconv"
	"testing"
	"time"

	"github.com/proftop/proftop/decode"
)

// BenchmarkDefineManyMethods defines 100,000 methods of 2,000 classes
// into a fresh table, as a wide picture's start does.
func BenchmarkDefineManyMethods(b *testing.B) {
	const methods, classes = 100_000, 2_000
	names := make([]string, classes)
	classOf := map[int64]string{}
	for c := range classes {
		names[c] = "com.example.module" + strconv.Itoa(c%37) + ".Service" + strconv.Itoa(c)
		classOf[int64(c+1)] = names[c]
	}
	defs := make([]decode.MethodDef, methods)
	for m := range defs {
		defs[m] = decode.MethodDef{Name: "operation" + strconv.Itoa(m), ClassIDRef: int64(m%classes + 1), MethodID: int64(m + 1), StartLineNumber: int64(m % 900)}
	}
	for b.Loop() {
		var mt methodTable
		mt.init(10*time.Second, 200_000)
		for i := range defs {
			mt.define(&defs[i], classOf)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*methods), "ns/method")
}
