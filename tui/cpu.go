package tui

import (
	"sync"
	"time"
)

// cpuMeter measures proftop's own CPU use between two samples.
type cpuMeter struct {
	mu      sync.Mutex
	lastCPU time.Duration
	lastAt  time.Time
	percent float64
}

func newCPUMeter() *cpuMeter {
	return &cpuMeter{lastCPU: processCPU(), lastAt: time.Now()}
}

// sample returns the CPU used since the previous sample, in % of one core.
// Samples closer than half a second apart return the previous figure.
func (c *cpuMeter) sample() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	if dt := now.Sub(c.lastAt); dt >= 500*time.Millisecond {
		cpu := processCPU()
		c.percent = 100 * float64(cpu-c.lastCPU) / float64(dt)
		c.lastCPU, c.lastAt = cpu, now
	}
	return c.percent
}
