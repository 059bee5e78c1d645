package decode

import "runtime"

// testingMem measures the bytes a function allocates.
type testingMem struct{ bytes uint64 }

func (m *testingMem) measure(f func()) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	m.bytes = after.TotalAlloc - before.TotalAlloc
}
