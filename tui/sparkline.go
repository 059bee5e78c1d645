package tui

import (
	"math"
	"strings"
)

var (
	blockRamp = []rune("▁▂▃▄▅▆▇█")
	asciiRamp = []rune("_.-=+*#@")
)

// sparkline draws the last width values, scaled from 0 to their maximum
// (or to ceiling when it is larger), one cell each.
func sparkline(values []float64, width int, ceiling float64, ascii bool) string {
	ramp := blockRamp
	if ascii {
		ramp = asciiRamp
	}
	if len(values) > width {
		values = values[len(values)-width:]
	}
	top := ceiling
	for _, v := range values {
		top = max(top, v)
	}
	var b strings.Builder
	for i := len(values); i < width; i++ {
		b.WriteByte(' ')
	}
	for _, v := range values {
		if top <= 0 || v <= 0 {
			b.WriteRune(' ')
			continue
		}
		i := int(v / top * float64(len(ramp)))
		b.WriteRune(ramp[min(max(i, 0), len(ramp)-1)])
	}
	return b.String()
}

// rangeSparkline draws the last width values scaled from lo (the lowest
// block) to hi (the highest), as btop scales its graphs to what they show:
// a slow counter's growth shows, not a flat row of full blocks. A NaN is
// no value: a blank.
func rangeSparkline(values []float64, width int, lo, hi float64, ascii bool) string {
	ramp := blockRamp
	if ascii {
		ramp = asciiRamp
	}
	if len(values) > width {
		values = values[len(values)-width:]
	}
	var b strings.Builder
	for i := len(values); i < width; i++ {
		b.WriteByte(' ')
	}
	for _, v := range values {
		if math.IsNaN(v) {
			b.WriteRune(' ')
			continue
		}
		i := 0
		if hi > lo {
			i = int((v - lo) / (hi - lo) * float64(len(ramp)))
		}
		b.WriteRune(ramp[min(max(i, 0), len(ramp)-1)])
	}
	return b.String()
}

// bar draws a meter of width cells filled to fraction.
func bar(fraction float64, width int, ascii bool) string {
	full, empty := "█", "░"
	if ascii {
		full, empty = "#", "."
	}
	n := int(fraction*float64(width) + 0.5)
	n = min(max(n, 0), width)
	return strings.Repeat(full, n) + strings.Repeat(empty, width-n)
}
