package tui

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/proftop/proftop/decode"
)

// Multi-row charts, as btop draws them: the area under a series, in
// braille (each cell two points wide and four dots high) or, on an ASCII
// terminal, in '#' and '.' (one point a cell, two levels a row). Values
// are scaled from lo (at the bottom) to hi (at the top).

// Braille dots of a cell, bottom row first, for the left and right column.
var (
	brailleLeft  = [4]rune{0x40, 0x04, 0x02, 0x01}
	brailleRight = [4]rune{0x80, 0x20, 0x10, 0x08}
)

// chartSpan is the values a chart of width cells can show: two a cell in
// braille, one in ASCII.
func chartSpan(width int, ascii bool) int {
	if ascii {
		return width
	}
	return 2 * width
}

// areaChart draws the last values of vs (NaN: no value) in width × height
// cells, right-aligned: the newest value at the right edge.
func areaChart(vs []float64, lo, hi float64, width, height int, ascii bool) []string {
	span := chartSpan(width, ascii)
	if len(vs) > span {
		vs = vs[len(vs)-span:]
	}
	levels := 4 * height
	if ascii {
		levels = 2 * height
	}
	// The level of each point, -1 for none; a value above lo shows at
	// least one dot, so that a small value is not taken for nothing.
	lv := make([]int, span)
	for i := range lv {
		lv[i] = -1
	}
	for i, v := range vs {
		if math.IsNaN(v) {
			continue
		}
		l := 0
		if hi > lo {
			l = int(math.Round((v - lo) / (hi - lo) * float64(levels)))
		}
		if l == 0 && v > lo {
			l = 1
		}
		lv[span-len(vs)+i] = min(max(l, 0), levels)
	}
	rows := make([]string, height)
	for r := range height {
		base := (height - 1 - r) * (levels / height) // levels below this row
		var b strings.Builder
		for c := range width {
			if ascii {
				b.WriteByte(asciiCell(lv[c], base))
				continue
			}
			cell := rune(0x2800)
			for half, dots := range [2][4]rune{brailleLeft, brailleRight} {
				l := lv[2*c+half]
				for d := range 4 {
					if l > base+d {
						cell |= dots[d]
					}
				}
			}
			if cell == 0x2800 {
				b.WriteByte(' ')
			} else {
				b.WriteRune(cell)
			}
		}
		rows[r] = b.String()
	}
	return rows
}

func asciiCell(level, base int) byte {
	switch {
	case level >= base+2:
		return '#'
	case level == base+1:
		return '.'
	}
	return ' '
}

// chartRange is the scale of a chart over vs: from 0 (or the lowest value,
// when some are negative) to the highest; percentages to at least 100.
func chartRange(vs []float64, unit string) (lo, hi float64) {
	first := true
	for _, v := range vs {
		if math.IsNaN(v) {
			continue
		}
		if first {
			lo, hi, first = v, v, false
		}
		lo, hi = min(lo, v), max(hi, v)
	}
	lo = min(lo, 0)
	if unit == decode.UnitPercent {
		hi = max(hi, 100)
	}
	if hi <= lo {
		hi = lo + 1
	}
	return lo, hi
}

// unitValue renders a value (already divided by the series' divisor) in
// its unit, in at most 8 cells: 12.3%, 4.56MiB, 1.23ms, 12.3k.
func unitValue(v float64, unit string) string {
	if math.IsNaN(v) {
		return "–"
	}
	neg := ""
	if v < 0 {
		neg, v = "-", -v
	}
	switch unit {
	case decode.UnitPercent:
		return neg + percent(v)
	case decode.UnitBytes:
		return neg + size(int64(v))
	case decode.UnitMicroseconds:
		return neg + dur(time.Duration(v*float64(time.Microsecond)))
	}
	if v == math.Trunc(v) && v < 10_000 {
		return neg + strconv.FormatInt(int64(v), 10)
	}
	if v < 10_000 {
		return neg + three(v)
	}
	return neg + count(int64(v))
}
